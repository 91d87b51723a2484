/**
 * `terminal-mcp stop`: stops the `npm start` supervisor (which stops what it started),
 * any of its services still alive (a supervisor killed with SIGKILL), and the broker.
 * SIGTERM first, so each stops cleanly; SIGKILL only after a generous wait. A pid from a
 * record is signalled only while its command line still names this checkout, so a
 * recycled pid of an unrelated process is never hit.
 */
import { homedir } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { pidAlive } from '../pid-alive.js';
import { findBroker } from './broker-presence.js';
import { pidRuns } from './process-info.js';
import { readSupervisorRunEvenIfStale } from './supervisor-run-file.js';

const GRACE_MS = 20_000;

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !pidAlive(pid);
}

/** SIGTERM, wait, SIGKILL; what happened, for the report. */
async function terminate(pid: number, name: string, out: string[]): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitForExit(pid, GRACE_MS)) {
    out.push(`stopped ${name} (pid ${pid})`);
    return;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* exited meanwhile */
  }
  await waitForExit(pid, 5_000);
  out.push(`${name} (pid ${pid}) did not stop within ${GRACE_MS / 1000} s of SIGTERM; killed it`);
}

export async function stopEverything(env: NodeJS.ProcessEnv): Promise<string[]> {
  const paths = resolvePaths(env, homedir());
  const out: string[] = [];
  const run = readSupervisorRunEvenIfStale(paths.socketDir);
  if (run) {
    // The supervisor stops what it started (clients first, the broker last) ...
    if (pidRuns(run.pid, 'start.mjs')) await terminate(run.pid, 'npm start supervisor', out);
    // ... and what is left (its SIGKILL, a hung service) goes here, in the same order.
    const ordered = [...run.children.filter((c) => c.name !== 'broker'), ...run.children.filter((c) => c.name === 'broker')];
    for (const child of ordered) if (pidRuns(child.pid, run.checkout)) await terminate(child.pid, child.name, out);
  }
  const broker = await findBroker(paths.socketDir);
  const brokerPid = broker.info?.pid ?? broker.lockHolder;
  if (brokerPid !== undefined && pidAlive(brokerPid)) {
    await terminate(brokerPid, 'broker', out);
    if (broker.state?.idle_exit_seconds === 0 && !run) out.push('if a service manager (systemd) runs it, stop it there instead, or it may be started again');
  }
  if (out.length === 0) out.push(`nothing was running for ${paths.socketDir}`);
  return out;
}

export async function stopCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.length > 0) {
    process.stderr.write('usage: terminal-mcp stop\n');
    return 2;
  }
  for (const line of await stopEverything(env)) process.stdout.write(`${line}\n`);
  return 0;
}
