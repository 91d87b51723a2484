/**
 * `terminal-mcp stop`: stops the `npm start` supervisor (which stops what it started),
 * any of its services still alive (a supervisor killed with SIGKILL), and the broker.
 * SIGTERM first, so each stops cleanly; SIGKILL only after a generous wait.
 *
 * A pid read from a record is signalled only while it is provably the process the record
 * was written about (pid plus start time, proc/process-identity.ts), checked again before
 * every signal: a record left by a crash may name a pid the kernel has since given to an
 * unrelated process (the user's editor, a shell), and that process is never touched.
 */
import { homedir } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { identityOf, isOrdinaryPid, signalIdentified, stillRunning, type ProcessIdentity } from '../proc/process-identity.js';
import { pidAlive } from '../pid-alive.js';
import { findBroker, type BrokerPresence } from './broker-presence.js';
import { pidRuns } from './process-info.js';
import { readSupervisorRunEvenIfStale } from './supervisor-run-file.js';

const GRACE_MS = 20_000;

async function waitForExit(id: ProcessIdentity, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!stillRunning(id)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !stillRunning(id);
}

/** SIGTERM, wait, SIGKILL, each only while `id` is still that process; what happened, for the report. */
async function terminate(id: ProcessIdentity, name: string, out: string[]): Promise<void> {
  if (!signalIdentified(id, 'SIGTERM')) return;
  if (await waitForExit(id, GRACE_MS)) {
    out.push(`stopped ${name} (pid ${id.pid})`);
    return;
  }
  signalIdentified(id, 'SIGKILL');
  await waitForExit(id, 5_000);
  out.push(`${name} (pid ${id.pid}) did not stop within ${GRACE_MS / 1000} s of SIGTERM; killed it`);
}

/** The identity a record gives a pid, if it is still that process. A record without a
 * start time (written by an older version) proves nothing: then undefined, and the
 * caller says so instead of signalling. */
function recorded(pid: number, start: string | undefined): ProcessIdentity | undefined {
  if (!isOrdinaryPid(pid) || start === undefined) return undefined;
  const id = { pid, start };
  return stillRunning(id) ? id : undefined;
}

function unproven(pid: number, name: string, out: string[]): void {
  if (isOrdinaryPid(pid) && pidAlive(pid)) {
    out.push(`${name}: pid ${pid} is alive but cannot be proven to be the process in the record (recycled pid, or a record from an older version); not signalled: check it with ps -p ${pid}`);
  }
}

/** The broker to stop: the one answering on the socket (the record it wrote names its
 * start time; an older broker's live answer is the proof), or the holder of the lock
 * while the socket does not answer, if its broker.json proves who it is. */
function brokerIdentity(broker: BrokerPresence, out: string[]): ProcessIdentity | undefined {
  if (broker.info) {
    if (!isOrdinaryPid(broker.info.pid)) return undefined;
    return broker.state?.pid_start !== undefined ? recorded(broker.info.pid, broker.state.pid_start) : identityOf(broker.info.pid);
  }
  if (broker.lockHolder === undefined) return undefined;
  const id = broker.lockState?.pid === broker.lockHolder ? recorded(broker.lockHolder, broker.lockState.pid_start) : undefined;
  if (!id) unproven(broker.lockHolder, 'the holder of broker.lock (the socket does not answer)', out);
  return id;
}

export async function stopEverything(env: NodeJS.ProcessEnv): Promise<string[]> {
  const paths = resolvePaths(env, homedir());
  const out: string[] = [];
  const run = readSupervisorRunEvenIfStale(paths.socketDir);
  if (run) {
    // The supervisor stops what it started (clients first, the broker last) ...
    const supervisor = pidRuns(run.pid, 'start.mjs') ? recorded(run.pid, run.pid_start) : undefined;
    if (supervisor) await terminate(supervisor, 'npm start supervisor', out);
    else if (run.pid_start === undefined) unproven(run.pid, 'npm start supervisor', out);
    // ... and what is left (its SIGKILL, a hung service) goes here, in the same order.
    const ordered = [...run.children.filter((c) => c.name !== 'broker'), ...run.children.filter((c) => c.name === 'broker')];
    for (const child of ordered) {
      const id = recorded(child.pid, child.pid_start);
      if (id) await terminate(id, child.name, out);
      else if (child.pid_start === undefined) unproven(child.pid, child.name, out);
    }
  }
  const broker = await findBroker(paths.socketDir);
  const brokerId = brokerIdentity(broker, out);
  if (brokerId) {
    await terminate(brokerId, 'broker', out);
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
