/**
 * The stdio side of `terminal-mcp`: make sure a broker answers (starting one for this
 * user in the background when none does), then keep one connection open to it for as
 * long as this process runs. A broker the launcher started exits after
 * TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS (default 300) with no client connected, so a
 * one-off desktop client does not leave it running forever; the held connection is what
 * tells it a client is still here, even while the chat is quiet.
 *
 * Starting a broker here crosses no privilege boundary: a desktop client runs this as the
 * operator's own user, the user the broker runs as anyway.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolvePaths, socketPathFor } from '@terminal-mcp/contract';
// eslint-disable-next-line terminal-mcp/no-network-egress -- the launcher's WebSocket to the broker's gateway.sock (a Unix socket path, never a host or port)
import WebSocket from 'ws';
import { IDLE_EXIT_ENV } from '../idle-exit.js';
import { socketAnswers } from '../socket-files.js';
import { openServiceLog } from './log-files.js';
import { BROKER_NODE_FLAGS } from './node-flags.js';

const STARTUP_TIMEOUT_MS = 15_000;
export const DEFAULT_IDLE_EXIT_SECONDS = '300';

async function waitForSocket(path: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await socketAnswers(path, 200)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** `meanwhile`: work of the caller's that overlaps the broker's start (the launcher loads
 * the gateway's code); awaited before the socket is waited for, only when a broker is started. */
export async function ensureBrokerRunning(env: NodeJS.ProcessEnv, meanwhile: () => Promise<unknown> = () => Promise.resolve()): Promise<'running' | 'started' | 'failed'> {
  const paths = resolvePaths(env, homedir());
  const socket = socketPathFor(paths.socketDir, 'gateway');
  if (await socketAnswers(socket)) return 'running';

  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const log = openServiceLog(paths.stateDir, 'broker');
  const brokerMain = fileURLToPath(new URL('../../bin/main.js', import.meta.url));
  const childEnv = { ...env };
  delete childEnv.TMUX; // the broker addresses the server named by TERMINAL_MCP_TMUX_SOCKET, not $TMUX
  delete childEnv.TMUX_PANE;
  delete childEnv.TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT; // test-only fault injection never reaches a launched broker
  childEnv[IDLE_EXIT_ENV] = env[IDLE_EXIT_ENV] || DEFAULT_IDLE_EXIT_SECONDS;
  const child = spawn(process.execPath, [...BROKER_NODE_FLAGS, brokerMain], { detached: true, stdio: ['ignore', 'ignore', log.fd], env: childEnv });
  child.unref();
  closeSync(log.fd);
  const idle = Number(childEnv[IDLE_EXIT_ENV]);
  process.stderr.write(
    `terminal-mcp: no broker was running; started one in the background (pid ${child.pid}), logs in ${log.path}; ` +
      `${idle > 0 ? `it exits after ${idle} s with no client (${IDLE_EXIT_ENV})` : 'it never exits by itself'}\n`,
  );
  await meanwhile();
  // Another launcher may race us; whichever broker wins, we wait for the socket.
  return (await waitForSocket(socket, Date.now() + STARTUP_TIMEOUT_MS)) ? 'started' : 'failed';
}

/** Holds a WebSocket to the broker's gateway socket while this process lives (the broker
 * pings it; `ws` answers), reconnecting when the broker restarts. The stdio gateway exits
 * the process when its client closes stdin, which ends the connection. */
export function holdBrokerPresence(env: NodeJS.ProcessEnv): void {
  const socket = socketPathFor(resolvePaths(env, homedir()).socketDir, 'gateway');
  if (socket.includes(':')) return; // ws+unix URLs cannot name such a path; idle exit then sees request traffic only
  const connect = () => {
    const ws = new WebSocket(`ws+unix://${socket}:/`);
    ws.on('error', () => undefined);
    ws.on('close', () => setTimeout(connect, 2_000).unref());
  };
  connect();
}
