/**
 * The session bursts that crashed tmux 3.3a while the broker recorded transcripts, as
 * repeatable trials (docs/transcripts.md "Why recording cannot take tmux down"): each
 * starts a private tmux server and a real broker process with transcripts on, does what a
 * user's script does to the server (each tmux command its own process, never waiting for
 * the broker), and says whether the server survived.
 *
 * - `create40`: 40 sessions created back to back while the broker records.
 * - `churn`: rounds of "create one, rename one, kill one" with pauses of 250-450 ms, just
 *   past the 300 ms the broker's control clients wait for the sessions to settle before
 *   they identify (identify-gate.ts), so session changes land while a client identifies.
 * - `sigkill`: 20 printing sessions recorded, then the broker is SIGKILLed: its clients
 *   must leave, its hidden session go and its pipes close, every session stay.
 *
 * A trial is a crash when the server that was started is no longer the one answering (its
 * pid is gone, or tmux says "server exited unexpectedly" / "lost server"). Whether each
 * session was recorded is counted from the broker's transcript directories (meta.json
 * per recorded session), which any recording design writes.
 *
 * Used by the bench (`node bench/dist/crash-bursts.js`, many runs) and by a test (a few).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './tmux-server.js';

export const BURSTS = ['create40', 'churn', 'sigkill'] as const;
export type BurstName = (typeof BURSTS)[number];

export interface BurstOutcome {
  readonly burst: BurstName;
  /** The tmux server died during the trial. */
  readonly crashed: boolean;
  /** What went wrong (a crash), '' when nothing did. */
  readonly detail: string;
  /** Sessions the broker recorded (transcript directories) / sessions it should have. */
  readonly recorded: number;
  readonly expected: number;
  /** Clients the broker left attached after a SIGKILL (sigkill only). */
  readonly leftClients: number;
  /** What a SIGKILLed broker left behind that it should not have (its hidden session,
   * pipes still open on printing panes, sessions missing), '' when nothing. */
  readonly leftovers: string;
  readonly ms: number;
}

export interface BurstOptions {
  /** Extra broker config (merged over `transcripts: { enabled: true }`). */
  config?: Record<string, unknown>;
  /** How long to wait for the recordings after a burst. Default 60 s. */
  recordTimeoutMs?: number;
}

const CRASH_RE = /server exited unexpectedly|lost server/i;
/** How long a burst waits for the sessions that exist before it to be recorded. It goes
 * ahead after that: a design that records slowly (one watcher identifying after another)
 * is still identifying when the burst comes, which is the case that crashed tmux; the
 * trial then counts as not fully recorded, not as failed. */
const SETUP_WAIT_MS = 30_000;

function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** One tmux command as a user's script runs it: its own process, no turn taken. */
async function userTmux(server: TmuxTestServer, args: readonly string[]): Promise<{ ok: boolean; stderr: string; stdout: string }> {
  const r = await execa('tmux', ['-L', server.socketName, '-N', ...args], { env: userEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
  return { ok: r.exitCode === 0, stderr: r.stderr, stdout: r.stdout };
}

/** The pid answering on the socket, or null when no server answers. */
async function serverPid(server: TmuxTestServer): Promise<number | null> {
  const r = await userTmux(server, ['display-message', '-p', '#{pid}']);
  const pid = Number(r.stdout.trim());
  return r.ok && Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`);

/** Transcript directories with a meta.json: sessions the broker started recording. */
export function recordedCount(broker: BrokerProcess): number {
  const root = join(broker.stateDir, 'transcripts');
  if (!existsSync(root)) return 0;
  return readdirSync(root).filter((d) => existsSync(join(root, d, 'meta.json'))).length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}

interface Trial {
  server: TmuxTestServer;
  broker: BrokerProcess | null;
  pid: number;
  /** stderr of the user's commands that says the server died. */
  crashSeen: string;
}

async function user(trial: Trial, args: readonly string[]): Promise<boolean> {
  const r = await userTmux(trial.server, args);
  if (CRASH_RE.test(r.stderr) && trial.crashSeen === '') trial.crashSeen = `${args[0]}: ${r.stderr.trim()}`;
  return r.ok;
}

/** Whether the server started for the trial still answers (same pid, process alive). */
async function serverCrashed(trial: Trial): Promise<string> {
  if (trial.crashSeen !== '') return trial.crashSeen;
  if (!alive(trial.pid)) return `tmux server pid ${trial.pid} is gone`;
  const pid = await serverPid(trial.server);
  if (pid !== trial.pid) return pid === null ? 'no tmux server answers' : `another tmux server (pid ${pid}) answers`;
  return '';
}

const LOOP = (word: string) => `sh -c 'while :; do echo ${word}; sleep 0.2; done'`;

async function startTrial(config: Record<string, unknown>, seeds: readonly string[], command: (name: string) => string): Promise<Trial> {
  const server = await startTmuxServer();
  const pid = await serverPid(server);
  if (pid === null) throw new Error('the test tmux server did not answer');
  const trial: Trial = { server, broker: null, pid, crashSeen: '' };
  try {
    for (const name of seeds) await user(trial, ['new-session', '-d', '-s', name, command(name)]);
    trial.broker = await startBrokerProcess({
      tmuxSocket: server.socketName,
      readyTimeoutMs: 60_000,
      config: { log_level: 'warn', ...config, transcripts: { enabled: true, ...((config.transcripts as object | undefined) ?? {}) } },
    });
  } catch (err) {
    await server.kill();
    throw err;
  }
  return trial;
}

async function endTrial(trial: Trial): Promise<void> {
  await trial.broker?.stop().catch(() => {});
  await trial.server.kill().catch(() => {});
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);

/** 40 sessions created back to back while one is recorded. */
async function create40(trial: Trial, opts: Required<BurstOptions>): Promise<Omit<BurstOutcome, 'burst' | 'ms'>> {
  const broker = trial.broker!;
  await until(() => recordedCount(broker) >= 1, SETUP_WAIT_MS);
  for (const name of names('agent-', 40)) await user(trial, ['new-session', '-d', '-s', name, 'sleep 600']);
  await until(async () => recordedCount(broker) >= 41 || (await serverCrashed(trial)) !== '', opts.recordTimeoutMs);
  await sleep(1_000);
  return { crashed: false, detail: '', recorded: recordedCount(broker), expected: 41, leftClients: 0, leftovers: '' };
}

/** Rounds of create, rename and kill, each round a moment after the last. */
async function churn(trial: Trial, opts: Required<BurstOptions>): Promise<Omit<BurstOutcome, 'burst' | 'ms'>> {
  const broker = trial.broker!;
  await until(() => recordedCount(broker) >= 12, SETUP_WAIT_MS);
  // Living sessions, oldest first: each round renames the oldest and kills the next.
  const living = names('agent-seed-', 12);
  let created = 0;
  for (let round = 0; round < 30; round += 1) {
    const fresh = `agent-new-${String(round).padStart(2, '0')}`;
    await user(trial, ['new-session', '-d', '-s', fresh, 'sleep 600']);
    created += 1;
    living.push(fresh);
    const renamed = living.shift()!;
    const to = `agent-ren-${String(round).padStart(2, '0')}`;
    if (await user(trial, ['rename-session', '-t', `=${renamed}`, to])) living.push(to);
    const victim = living.shift()!;
    await user(trial, ['kill-session', '-t', `=${victim}`]);
    await sleep(250 + Math.floor(Math.random() * 200));
  }
  await until(async () => recordedCount(broker) >= 12 + created || (await serverCrashed(trial)) !== '', opts.recordTimeoutMs);
  await sleep(1_000);
  return { crashed: false, detail: '', recorded: recordedCount(broker), expected: 12 + created, leftClients: 0, leftovers: '' };
}

/** 20 printing sessions recorded, then the broker is SIGKILLed. */
async function sigkill(trial: Trial, _opts: Required<BurstOptions>): Promise<Omit<BurstOutcome, 'burst' | 'ms'>> {
  const broker = trial.broker!;
  await until(() => recordedCount(broker) >= 20, SETUP_WAIT_MS);
  const count = recordedCount(broker);
  // Let the recordings run a moment (the watchers, or pipes, carry output).
  await sleep(500);
  process.kill(broker.pid, 'SIGKILL');
  await broker.exited();
  // Every client of the dead broker must leave, and the server stay up after they have.
  await until(async () => (await clients(trial)).length === 0 || (await serverCrashed(trial)) !== '', 15_000);
  await sleep(2_500);
  const leftClients = (await clients(trial)).length;
  // Its hidden session goes (its pane waits for the broker's pid), and its pipes close
  // (the panes print every 0.2 s: `cat` dies of SIGPIPE with no reader).
  const left: string[] = [];
  const sessions = async () => (await userTmux(trial.server, ['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').filter((l) => l !== '');
  const pipes = async () => (await userTmux(trial.server, ['list-panes', '-a', '-F', '#{pane_pipe}'])).stdout.split('\n').filter((l) => l === '1').length;
  if (!(await until(async () => !(await sessions()).includes('__terminal_mcp_control'), 15_000))) left.push('hidden session left');
  if (!(await until(async () => (await pipes()) === 0, 15_000))) left.push(`${await pipes()} pipes left open`);
  const now = await sessions();
  const gone = names('agent-', 20).filter((n) => !now.includes(n));
  if (gone.length > 0) left.push(`${gone.length} sessions gone`);
  return { crashed: false, detail: '', recorded: count, expected: 20, leftClients, leftovers: left.join(', ') };
}

async function clients(trial: Trial): Promise<string[]> {
  const r = await userTmux(trial.server, ['list-clients', '-F', '#{client_pid}']);
  return r.ok ? r.stdout.split('\n').filter((l) => l !== '') : [];
}


const SEEDS: Record<BurstName, { names: string[]; command: (name: string) => string }> = {
  create40: { names: ['agent-seed'], command: () => 'sleep 600' },
  churn: { names: names('agent-seed-', 12), command: () => 'sleep 600' },
  sigkill: { names: names('agent-', 20), command: (name) => LOOP(name) },
};

const RUN: Record<BurstName, (trial: Trial, opts: Required<BurstOptions>) => Promise<Omit<BurstOutcome, 'burst' | 'ms'>>> = { create40, churn, sigkill };

/** One trial of `burst` on a new server and broker; never throws for a crash. */
export async function runBurst(burst: BurstName, options: BurstOptions = {}): Promise<BurstOutcome> {
  const opts: Required<BurstOptions> = { config: options.config ?? {}, recordTimeoutMs: options.recordTimeoutMs ?? 60_000 };
  const started = Date.now();
  const seeds = SEEDS[burst];
  const trial = await startTrial(opts.config, seeds.names, seeds.command);
  try {
    const outcome = await RUN[burst](trial, opts);
    const crash = await serverCrashed(trial);
    return { burst, ...outcome, crashed: crash !== '', detail: crash || outcome.detail, ms: Date.now() - started };
  } finally {
    await endTrial(trial);
  }
}
