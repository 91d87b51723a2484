// What a test run leaves behind, for scripts/run-tests.mjs: the run gets a private
// directory for its temporary files (TMPDIR) and tmux sockets (TMUX_TMPDIR), and a tag
// (TERMINAL_MCP_TEST_RUN) in the environment of every process it starts. The default
// state and socket directories (XDG_STATE_HOME, XDG_RUNTIME_DIR) point into it too, so a
// test that forgot to give a broker, `npm start` or `terminal-mcp stop` its own never
// reaches the user's (where a stale record could name a pid that is not ours). At the end:
//  - processes: every process that was not running at the start and carries the tag, or
//    runs with its working directory in the checkout or in the private directory;
//  - tmux sockets: anything in the private socket directory, and tmcp-test-<tag>-* sockets
//    anywhere under /tmp/tmux-* (a test that gave tmux another TMUX_TMPDIR or none);
//  - temporary files: anything in the private TMPDIR, and /tmp entries with the tag in
//    their name (tests that need a directory other users can enter);
//  - the default state and socket directories: anything in them (a test used them);
//  - with TERMINAL_MCP_LEFTOVERS_SHARED=1 (.ci/run sets it: a CI machine runs nothing else
//    of ours), also every entry of ours that appeared in /tmp (tmcp-*, terminal-mcp-*,
//    such as terminal-mcp-git-home-*, tmcp-raw-*, tmcp-shots-*, tmcp-store-*) or in
//    /tmp/tmux-<uid> (tmcp-test-*) while the run ran, whatever its name: a test that
//    ignored TMPDIR or TMUX_TMPDIR. Named only, never removed: on a developer's machine
//    another run may own them, which is why this check is off there.
// Each is named; processes that carry the tag are then ended (the tag proves they are the
// run's: no other process has it) and the private directory is removed, so a failed run
// still leaves the machine clean. Linux only: elsewhere only the files are checked.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
// From the build (npm test builds first): the same pid-plus-start-time identity that
// `terminal-mcp stop` trusts.
import { processStartTime } from '../../services/broker/dist/effects/proc/process-identity.js';

export const RUN_TAG_NAME = 'TERMINAL_MCP_TEST_RUN';
/** Processes may take a moment to go after the last test stopped them. */
const SETTLE_MS = 30_000;

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function processIds() {
  if (!existsSync('/proc/self/stat')) return [];
  return readdirSync('/proc')
    .map(Number)
    .filter((pid) => Number.isSafeInteger(pid) && pid > 0);
}

/** Names of ours in the shared directories (see the header). */
const SHARED_TMP_OURS = /^(tmcp-|terminal-mcp-)/;
const SHARED_TMUX_OURS = /^tmcp-test-/;
const sharedTmuxDir = () => join('/tmp', `tmux-${process.getuid?.() ?? 0}`);
function sharedEntries() {
  return [
    ...entries('/tmp').filter((e) => SHARED_TMP_OURS.test(e)).map((e) => join('/tmp', e)),
    ...entries(sharedTmuxDir()).filter((e) => SHARED_TMUX_OURS.test(e)).map((e) => join(sharedTmuxDir(), e)),
  ];
}

const inside = (path, dir) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** Starts a run: the snapshot of running processes, the private directories and the
 * environment for the run's processes. */
export function startRun(checkout) {
  const tag = randomBytes(5).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tmcp-run-${tag}-`));
  chmodSync(dir, 0o700);
  const [tmp, tmux, stateHome, runtime] = ['tmp', 'tmux', 'state-home', 'runtime'].map((name) => join(dir, name));
  for (const d of [tmp, tmux, stateHome, runtime]) mkdirSync(d, { mode: 0o700 });
  const before = new Set(processIds().map((pid) => `${pid}:${processStartTime(pid)}`));
  const checkShared = process.env.TERMINAL_MCP_LEFTOVERS_SHARED === '1';
  return {
    sharedBefore: checkShared ? new Set(sharedEntries()) : undefined,
    tag,
    dir,
    tmp,
    tmux,
    defaults: [stateHome, runtime],
    checkout,
    before,
    env: { [RUN_TAG_NAME]: tag, TMPDIR: tmp, TMUX_TMPDIR: tmux, XDG_STATE_HOME: stateHome, XDG_RUNTIME_DIR: runtime },
  };
}

function runProcesses(run) {
  const mine = new Set([process.pid]);
  for (let pid = process.ppid; pid > 1; pid = parentOf(pid)) mine.add(pid);
  const tagged = `${RUN_TAG_NAME}=${run.tag}`;
  const found = [];
  for (const pid of processIds()) {
    if (mine.has(pid)) continue;
    const start = processStartTime(pid);
    if (start === undefined || run.before.has(`${pid}:${start}`)) continue;
    let cwd;
    let hasTag = false;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      /* another user's process, or gone */
    }
    try {
      hasTag = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(tagged);
    } catch {
      /* another user's process, or gone */
    }
    const cwdOurs = cwd !== undefined && (inside(cwd, run.checkout) || inside(cwd, run.dir));
    if (!hasTag && !cwdOurs) continue;
    let args = '';
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      /* gone */
    }
    found.push({ pid, start, hasTag, cwd, args });
  }
  return found;
}

function entries(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Ends the run: waits a while for processes to go, names what is left, ends what is
 * provably the run's, removes the private directory. Returns the lines naming leftovers. */
export async function finishRun(run) {
  const found = [];
  let procs = runProcesses(run);
  for (const deadline = Date.now() + SETTLE_MS; procs.length > 0 && Date.now() < deadline; procs = runProcesses(run)) {
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const p of procs) {
    found.push(`process ${p.pid} (cwd ${p.cwd ?? '?'}): ${p.args.slice(0, 200)}${p.hasTag ? '' : ' [not started with the run tag: not ended]'}`);
    if (p.hasTag && processStartTime(p.pid) === p.start) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }
  for (const uidDir of entries(run.tmux)) for (const socket of entries(join(run.tmux, uidDir))) found.push(`tmux socket ${join(run.tmux, uidDir, socket)}`);
  for (const uidDir of entries('/tmp').filter((e) => e.startsWith('tmux-'))) {
    for (const socket of entries(join('/tmp', uidDir)).filter((s) => s.startsWith(`tmcp-test-${run.tag}-`))) {
      found.push(`tmux socket /tmp/${uidDir}/${socket}`);
      rmSync(join('/tmp', uidDir, socket), { force: true });
    }
  }
  for (const entry of entries(run.tmp)) found.push(`temporary ${join(run.tmp, entry)}`);
  // Only ours: a browser keeps its own files in XDG_RUNTIME_DIR (dconf).
  for (const d of run.defaults) if (existsSync(join(d, 'terminal-mcp'))) found.push(`a test used the default state or socket directory: ${join(d, 'terminal-mcp')}`);
  for (const entry of entries('/tmp').filter((e) => e.includes(run.tag) && join('/tmp', e) !== run.dir)) {
    found.push(`temporary /tmp/${entry}`);
    rmSync(join('/tmp', entry), { recursive: true, force: true });
  }
  if (run.sharedBefore) {
    for (const path of sharedEntries()) {
      if (path === run.dir || run.sharedBefore.has(path) || found.some((line) => line.endsWith(path))) continue;
      found.push(`${path.startsWith(sharedTmuxDir()) ? 'tmux socket' : 'temporary'} ${path} [appeared during the run outside its private directories: not removed]`);
    }
  }
  rmSync(run.dir, { recursive: true, force: true });
  return found;
}
