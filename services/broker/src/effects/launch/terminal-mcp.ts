#!/usr/bin/env node
/**
 * `terminal-mcp`: what desktop MCP clients launch. If no broker answers on gateway.sock
 * it starts one for the same user in the background (and says so on stderr), then runs
 * the stdio gateway in this process. Nothing but MCP goes to stdout.
 *
 * This lives in the broker's effects layer because it spawns a process; the gateway
 * itself never does. Starting a broker here crosses no privilege boundary: a desktop
 * client runs this as the operator's own user, the user the broker runs as anyway.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolvePaths, socketPathFor } from '@terminal-mcp/contract';
import { socketAnswers } from '../socket-files.js';

const STARTUP_TIMEOUT_MS = 15_000;

async function waitForSocket(path: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await socketAnswers(path, 200)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export async function ensureBrokerRunning(env: NodeJS.ProcessEnv): Promise<'running' | 'started' | 'failed'> {
  const paths = resolvePaths(env, homedir());
  const socket = socketPathFor(paths.socketDir, 'gateway');
  if (await socketAnswers(socket)) return 'running';

  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const logPath = join(paths.stateDir, 'broker.log');
  const logFd = openSync(logPath, 'a', 0o600);
  const brokerMain = fileURLToPath(new URL('../../main.js', import.meta.url));
  const childEnv = { ...env };
  delete childEnv.TMUX; // the broker addresses the server named by TERMINAL_MCP_TMUX_SOCKET, not $TMUX
  delete childEnv.TMUX_PANE;
  delete childEnv.TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT; // test-only fault injection never reaches a launched broker
  const child = spawn(process.execPath, [brokerMain], { detached: true, stdio: ['ignore', logFd, logFd], env: childEnv });
  child.unref();
  closeSync(logFd);
  process.stderr.write(`terminal-mcp: no broker was running; started one in the background (pid ${child.pid}), logs in ${logPath}\n`);
  // Another launcher may race us; whichever broker wins, we wait for the socket.
  return (await waitForSocket(socket, Date.now() + STARTUP_TIMEOUT_MS)) ? 'started' : 'failed';
}

async function main(): Promise<void> {
  const state = await ensureBrokerRunning(process.env);
  if (state === 'failed') {
    process.stderr.write('terminal-mcp: the broker did not come up; tools will answer BROKER_UNAVAILABLE until it does\n');
  }
  const require = createRequire(import.meta.url);
  const gatewayStdio = require.resolve('@terminal-mcp/gateway/stdio');
  await import(pathToFileURL(gatewayStdio).href);
}

main().catch((err: unknown) => {
  process.stderr.write(`terminal-mcp: ${(err as Error).message}\n`);
  process.exit(1);
});
