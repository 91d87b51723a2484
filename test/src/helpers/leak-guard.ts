/**
 * After each test file (vitest.config.ts `setupFiles`): the file fails when it left a tmux
 * test server running or a process it started alive, and the failure names them, so the
 * leak gets fixed in the test that made it. What is found is ended too, so that one leak
 * does not spill into the files after it or outlive the run.
 *
 * Which processes are the file's: this module puts a private marker in the environment
 * when the file starts (TERMINAL_MCP_TEST_FILE=<random>). Every process the file starts
 * inherits it (tmux servers, and through them every pane; brokers, browsers, shells), and
 * no other process on the machine has it, so it proves whose a process is. A process
 * started with a scrubbed environment carries no marker; the run's own check
 * (scripts/lib/leftovers.mjs) still finds it by its working directory.
 *
 * The default state and socket directories (XDG_STATE_HOME, XDG_RUNTIME_DIR) point into a
 * directory of the file's own for the same reason: a test that forgot to give a broker,
 * `npm start` or `terminal-mcp stop` private directories must not reach the user's (a
 * stale record there may name a pid that is not ours); it fails instead, named.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartTime } from '@terminal-mcp/broker/process-identity';
import { afterAll } from 'vitest';
import { FILE_MARKER_NAME, fileTag } from './file-tag.js';

const fileMarker = randomBytes(6).toString('hex');
process.env[FILE_MARKER_NAME] = fileMarker;

const defaultsRoot = mkdtempSync(join(tmpdir(), 'tmcp-defaults-'));
const defaultDirs = [join(defaultsRoot, 'state-home'), join(defaultsRoot, 'runtime')] as const;
for (const dir of defaultDirs) mkdirSync(dir, { mode: 0o700 });
[process.env.XDG_STATE_HOME, process.env.XDG_RUNTIME_DIR] = defaultDirs;

/** Registered by tmux-server.ts (only files that start tmux servers load it). */
const TMUX_REGISTRY = Symbol.for('terminal-mcp.test.tmux-servers');
type RemoveLeftoverServers = () => Promise<string[]>;

/** Processes may take a moment to go after their test stopped them (a pane's shell after
 * its server was killed, a browser's helpers): generous, for a slow and busy machine. */
const SETTLE_MS = 30_000;

interface MarkedProcess {
  pid: number;
  start: string;
  args: string;
}

/** Every live process (not a zombie) other than this one whose environment has our marker,
 * or whose command line names a directory the file tagged with it (file-tag.ts). */
function markedProcesses(): MarkedProcess[] {
  const entry = `${FILE_MARKER_NAME}=${fileMarker}`;
  const tag = fileTag(fileMarker);
  const found: MarkedProcess[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry) && !cmdline.includes(tag)) continue;
      const start = processStartTime(pid);
      if (start === undefined) continue;
      const args = cmdline || readlinkSync(`/proc/${pid}/exe`);
      found.push({ pid, start, args });
    } catch {
      /* exited meanwhile, or another user's process */
    }
  }
  return found;
}

async function processesLeft(): Promise<MarkedProcess[]> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const left = markedProcesses();
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  const removeServers = (globalThis as Record<symbol, RemoveLeftoverServers | undefined>)[TMUX_REGISTRY];
  const servers = removeServers ? await removeServers() : [];
  const processes = process.platform === 'linux' ? await processesLeft() : [];
  for (const p of processes) {
    // Still the marked process (start time unchanged): end it.
    if (processStartTime(p.pid) === p.start) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }
  // Only ours: a browser keeps its own files in XDG_RUNTIME_DIR (dconf).
  const usedDefaults = defaultDirs.map((dir) => join(dir, 'terminal-mcp')).filter((path) => existsSync(path));
  rmSync(defaultsRoot, { recursive: true, force: true });
  const found = [
    ...servers.map((s) => `tmux test server ${s} still running`),
    ...processes.map((p) => `process ${p.pid} still running: ${p.args.slice(0, 200)}`),
    ...usedDefaults.map((path) => `a test used the default state or socket directory: ${path}`),
  ];
  if (found.length > 0) throw new Error(`this test file left these behind (processes and servers are now ended; fix the test that made them):\n  ${found.join('\n  ')}`);
}, SETTLE_MS + 60_000);
