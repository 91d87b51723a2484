#!/usr/bin/env node
// `npm start`: runs the broker, the HTTP gateway, the observer, the dashboard (on
// loopback) and the notifier (no listener: it sends the broker's notices over HTTP) and
// supervises them until Ctrl-C.
//  - Already running (a live supervisor.json)? Says so, with pids and URLs, and exits 0
//    without touching it.
//  - Builds only when the sources changed since the last build (scripts/lib/build-stamp.mjs),
//    with the build's output in node_modules/.cache/terminal-mcp/build.log, never in the banner; and never
//    while something serves the dashboard's port (it would be rebuilt under its feet).
//  - Reuses a broker that already answers, and says so when it enforces a different
//    config than the one asked for (and how to restart it).
//  - Every service logs JSON lines to <state dir>/logs/<service>.log.
//  - The banner is printed once every service answers its health check, with the config
//    as the broker reports it.
//  - The services watch this process through an IPC channel (scripts/lib/exit-with-parent.mjs):
//    if it dies, even by SIGKILL, they stop too.
//  - The HTTP gateway is never open to every local user by default: without
//    TERMINAL_MCP_GATEWAY_TOKEN it gets the token made at first start in the state directory
//    (gateway-token.key; `terminal-mcp client-config http` prints it), unless the operator
//    sets TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1. The banner says which.
// Everything is configured by the usual TERMINAL_MCP_* environment variables.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIsCurrent, sourceStamp, writeBuildStamp } from './lib/build-stamp.mjs';
import { preflight } from './lib/preflight.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(pathToFileURL(join(root, p)).href);
const say = (line = '') => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`terminal-mcp: ${line}\n`);

const env = { ...process.env };
delete env.TMUX; // the broker addresses the server named by TERMINAL_MCP_TMUX_SOCKET, not $TMUX
delete env.TMUX_PANE;
delete env.TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS; // a broker npm start runs never exits by itself
delete env.TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT;

const SERVICES = [
  { name: 'gateway', script: 'services/gateway/dist/bin/http.js' },
  { name: 'observer', script: 'services/observer/dist/bin/observer.js' },
  { name: 'web', script: 'web/dist/server/main.js' },
];
const PRELOAD = pathToFileURL(join(root, 'scripts/lib/exit-with-parent.mjs')).href;

function tail(path, lines = 30) {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// --- 1. Already running? (only possible when a build exists to have started it)
async function alreadyRunning() {
  if (!existsSync(join(root, 'services/broker/dist/effects/launch/supervisor-run-file.js'))) return false;
  const { resolvePaths } = await dist('shared/contract/dist/index.js');
  const { readLiveSupervisorRun } = await dist('services/broker/dist/effects/launch/supervisor-run-file.js');
  const { serviceEndpoints } = await dist('services/broker/dist/effects/launch/service-endpoints.js');
  const { probeHttp } = await dist('services/broker/dist/effects/launch/broker-probe.js');
  const paths = resolvePaths(env, homedir());
  const run = readLiveSupervisorRun(paths.socketDir);
  if (run) {
    say(`Terminal MCP is already running: npm start pid ${run.pid} (since ${run.started_at}), from ${run.checkout}`);
    for (const c of run.children) say(`  ${c.name.padEnd(9)} pid ${c.pid}${c.url ? `  ${c.url}` : ''}`);
    say('Nothing was changed. Details: terminal-mcp status. Stop it: terminal-mcp stop (or Ctrl-C where it runs).');
    return true;
  }
  for (const e of serviceEndpoints(env)) {
    const status = await probeHttp(e.liveUrl);
    if (status !== undefined) {
      warn(`something already answers on ${e.url} (not an npm start of this user: systemd, or another program), so npm start does not start another ${e.service}.`);
      warn('terminal-mcp status shows what runs; stop it, or set TERMINAL_MCP_<SERVICE>_PORT to other ports.');
      process.exit(1);
    }
  }
  return false;
}

/** The config checked with the last build's own parser, so a bad key stops the start
 * before a build that may take minutes. A stale build may not know a key the sources do:
 * then its refusal is only a warning, and the fresh build's check (below) decides. */
async function validateConfigBeforeBuild() {
  if (!env.TERMINAL_MCP_CONFIG || !existsSync(join(root, 'services/broker/dist/effects/config-file.js'))) return;
  const { loadConfigFile } = await dist('services/broker/dist/effects/config-file.js');
  try {
    loadConfigFile(env.TERMINAL_MCP_CONFIG);
  } catch (err) {
    if (env.TERMINAL_MCP_START_SKIP_BUILD === '1' || buildIsCurrent(root, sourceStamp(root))) {
      warn(err.message);
      warn('nothing was built or started.');
      process.exit(2);
    }
    warn(`the last build refuses the config (${err.message.split('\n')[0]}); checking again after building the changed sources`);
  }
}

// --- 2. Build when the sources changed
// The build belongs to the checkout, not to a state directory (several checkouts may share one).
function buildLogPath() {
  const dir = join(root, 'node_modules', '.cache', 'terminal-mcp');
  mkdirSync(dir, { recursive: true });
  return join(dir, 'build.log');
}

async function buildIfChanged() {
  // For tests and packagers that build separately: never build here.
  if (env.TERMINAL_MCP_START_SKIP_BUILD === '1') return;
  const stamp = sourceStamp(root);
  if (buildIsCurrent(root, stamp)) return;
  const log = buildLogPath();
  const fd = openSync(log, 'w', 0o600);
  const started = Date.now();
  process.stdout.write(`terminal-mcp: sources changed since the last build; building (output in ${log}) ... `);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const code = await new Promise((resolve) => {
    const child = spawn(npm, ['run', 'build'], { cwd: root, env, stdio: ['ignore', fd, fd] });
    child.on('exit', (c) => resolve(c ?? 1));
    child.on('error', () => resolve(1));
  });
  closeSync(fd);
  if (code !== 0) {
    say('failed');
    process.stderr.write(`${tail(log, 40)}\n`);
    warn(`the build failed (full output: ${log}); nothing was started`);
    process.exit(1);
  }
  writeBuildStamp(root, stamp);
  say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
}

// Before anything slow: a missing config file or a state directory open to others
// (scripts/lib/preflight.mjs; `npm start` also ran it before installing). Then the config's
// keys and values with the last build's schema, when there is one, before building.
{
  const { problems, fixed } = preflight(env);
  for (const line of fixed) say(`terminal-mcp: ${line}`);
  if (problems.length > 0) {
    for (const line of problems) warn(line);
    process.exit(2);
  }
}
if (await alreadyRunning()) process.exit(0);
await validateConfigBeforeBuild();
await buildIfChanged();

// --- 3. Start (modules from the fresh build)
const { resolvePaths, socketPathFor } = await dist('shared/contract/dist/index.js');
const { findBroker } = await dist('services/broker/dist/effects/launch/broker-presence.js');
const { probeBrokerReadiness, probeHttp } = await dist('services/broker/dist/effects/launch/broker-probe.js');
const { readBrokerState } = await dist('services/broker/dist/effects/launch/broker-state-file.js');
const { openServiceLog, logDir } = await dist('services/broker/dist/effects/launch/log-files.js');
const { serviceEndpoint } = await dist('services/broker/dist/effects/launch/service-endpoints.js');
const { writeSupervisorRun, removeSupervisorRun } = await dist('services/broker/dist/effects/launch/supervisor-run-file.js');
const { holdBrokerPresence } = await dist('services/broker/dist/effects/launch/stdio-launch.js');
const { BROKER_NODE_FLAGS } = await dist('services/broker/dist/effects/launch/node-flags.js');
const { configSummaryDifferences, describeConfigSummary, summarizeConfig } = await dist('services/broker/dist/config/config-summary.js');
const { loadConfigFile } = await dist('services/broker/dist/effects/config-file.js');
const { socketAnswers } = await dist('services/broker/dist/effects/socket-files.js');
const { gatewayTokenFor, GATEWAY_TOKEN_FILE_NAME } = await dist('services/broker/dist/effects/launch/gateway-token-file.js');
const { processStartTime } = await dist('services/broker/dist/effects/proc/process-identity.js');

const paths = resolvePaths(env, homedir());
const startedAt = new Date().toISOString();
const children = [];
let stopping = false;

function recordRun(ownsBroker) {
  // With start times: `terminal-mcp stop` signals a recorded pid only while it is still
  // the process recorded here (a child not yet reaped cannot have lost its pid).
  writeSupervisorRun(paths.socketDir, {
    pid: process.pid,
    pid_start: processStartTime(process.pid),
    started_at: startedAt,
    checkout: root,
    owns_broker: ownsBroker,
    children: children.map((c) => ({ name: c.name, pid: c.proc.pid, pid_start: processStartTime(c.proc.pid), url: c.url ?? null, log: c.log })),
  });
}

function run(name, script, url, nodeFlags = [], extraEnv = {}) {
  const log = openServiceLog(paths.stateDir, name);
  // IPC channel: the child notices when this process dies (exit-with-parent.mjs).
  // stderr (JSON lines) to the log file; stdout (a service's banner for a person at a
  // terminal) is dropped: this process prints one banner for all of them.
  const proc = spawn(process.execPath, [...nodeFlags, '--import', PRELOAD, join(root, script)], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', log.fd, 'ipc'] });
  closeSync(log.fd);
  const child = { name, proc, url, log: log.path };
  proc.on('exit', (code, signal) => {
    if (stopping) return;
    warn(`${name} exited (${signal ?? `code ${code}`}); stopping everything. Last lines of ${log.path}:`);
    process.stderr.write(`${tail(log.path)}\n`);
    void stop(1);
  });
  children.push(child);
  return child;
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  // Clients first, the broker last, so nothing is left talking to a vanished broker.
  const alive = (c) => c.proc.exitCode === null && c.proc.signalCode === null;
  const ordered = [...children.filter((c) => c.name !== 'broker'), ...children.filter((c) => c.name === 'broker')];
  for (const c of ordered) {
    if (!alive(c)) continue;
    c.proc.kill('SIGTERM');
    await new Promise((resolve) => {
      const timer = setTimeout(() => (c.proc.kill('SIGKILL'), resolve()), 15_000);
      c.proc.once('exit', () => (clearTimeout(timer), resolve()));
    });
  }
  removeSupervisorRun(paths.socketDir);
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0));

async function waitUntil(what, check, ms = 90_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (stopping) await new Promise(() => {});
    if (Date.now() > deadline) {
      warn(`${what} did not become ready in ${ms / 1000} s; stopping everything (logs in ${logDir(paths.stateDir)})`);
      await stop(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

let requested;
try {
  requested = summarizeConfig(loadConfigFile(paths.configPath));
} catch (err) {
  warn(err.message);
  process.exit(2);
}

const existing = await findBroker(paths.socketDir);
let ownsBroker = false;
if (existing.info) {
  say(`terminal-mcp: a broker is already running (pid ${existing.info.pid}); using it`);
  // Held like a desktop client's launcher holds it, so a broker that exits when idle
  // (one a desktop client started) stays while these services use it.
  holdBrokerPresence(env);
  const watchBroker = setInterval(async () => {
    if (stopping || (await socketAnswers(socketPathFor(paths.socketDir, 'gateway'), 2_000))) return;
    warn(`the broker this npm start was using (pid ${existing.info.pid}) stopped; stopping everything`);
    void stop(1);
  }, 5_000);
  watchBroker.unref();
} else if (existing.lockHolder) {
  warn(`pid ${existing.lockHolder} holds the broker lock in ${paths.socketDir} but does not answer; stop it (terminal-mcp stop) and run npm start again`);
  process.exit(1);
} else {
  ownsBroker = true;
  run('broker', 'services/broker/dist/bin/main.js', undefined, BROKER_NODE_FLAGS);
}
// The gateway's protection on loopback (see the top of this file).
let gatewayAuth;
try {
  gatewayAuth = gatewayTokenFor(env, paths.stateDir, true);
} catch (err) {
  warn(`the gateway token in ${paths.stateDir} cannot be used: ${err.message}`);
  process.exit(2);
}
const gatewayEnv = gatewayAuth.source === 'file' ? { TERMINAL_MCP_GATEWAY_TOKEN: gatewayAuth.token } : {};
for (const s of SERVICES) run(s.name, s.script, serviceEndpoint(s.name, env).url, [], s.name === 'gateway' ? gatewayEnv : {});
// The notifier delivers notices to the configured channels (the broker opens no network
// connection); with no listener, it is ready once the broker says it is connected.
run('notifier', 'services/notifier/dist/bin/notifier.js', undefined);
recordRun(ownsBroker);

await waitUntil('the broker', async () => (await probeBrokerReadiness(paths.socketDir, 2_000)) !== undefined);
for (const s of SERVICES) {
  const e = serviceEndpoint(s.name, env);
  await waitUntil(s.name, async () => {
    // Live, not ready: with no tmux server the gateway is up but not ready, and the
    // banner says why instead of npm start giving up.
    const status = await probeHttp(e.liveUrl, 2_000);
    return status !== undefined && status < 500;
  });
}
await waitUntil('the notifier', async () => (await probeBrokerReadiness(paths.socketDir, 2_000))?.notifier?.connected === true);

// --- 4. The banner: what the broker reports, not what the files say
const info = (await findBroker(paths.socketDir)).info;
const state = readBrokerState(paths.socketDir);
const readiness = await probeBrokerReadiness(paths.socketDir);
const gateway = serviceEndpoint('gateway', env);
const observer = serviceEndpoint('observer', env);
const web = serviceEndpoint('web', env);
const bootstrap = join(paths.stateDir, 'webauth-bootstrap.txt');
const launcher = join(root, 'services/broker/dist/effects/launch/terminal-mcp.js');
const row = (label, value) => say(`  ${label.padEnd(12)}${value}`);

say('');
say(`Terminal MCP is running (npm start, pid ${process.pid}; loopback only).`);
say('');
row('Broker', `pid ${info?.pid ?? '?'}, version ${info?.version ?? '?'}${ownsBroker ? '' : ' (already running; reused)'}${readiness && !readiness.ready ? ` NOT READY: tmux ${readiness.tmux.detail}` : ''}`);
if (state && state.pid === info?.pid) {
  row('Config', state.config_path ?? '(no file: safe defaults)');
  for (const line of describeConfigSummary(state.config)) row('', line);
  const diff = configSummaryDifferences(state.config, requested);
  const samePath = (state.config_path ?? undefined) === paths.configPath;
  if (!samePath || diff.length > 0) {
    say('');
    say(`  NOTE: the running broker does not enforce the config you asked for (${paths.configPath ?? 'the defaults'}):`);
    say(`        ${samePath ? `it differs in ${diff.join(', ')}` : `it was started with ${state.config_path ?? 'the defaults'}`}.`);
    say('        To apply yours: terminal-mcp stop, then npm start again.');
    say('');
  }
} else {
  row('Config', 'unknown: the running broker does not report it (an older version?); terminal-mcp stop, then npm start');
}
row('tmux', info?.tmux_socket ? `tmux -L ${info.tmux_socket}` : 'your default tmux server');
row('State', paths.stateDir);
row('Logs', `${logDir(paths.stateDir)}/{${ownsBroker ? 'broker,' : ''}gateway,observer,web,notifier}.log (JSON lines; TERMINAL_MCP_LOG_LEVEL=debug for more)`);
say('');
row('MCP (HTTP)', `${gateway.url}    health ${gateway.readyUrl}`);
const oauthOn = Boolean(env.TERMINAL_MCP_GATEWAY_PUBLIC_URL);
const tokenWhere = gatewayAuth.source === 'env' ? 'TERMINAL_MCP_GATEWAY_TOKEN' : `made at first start, ${join(paths.stateDir, GATEWAY_TOKEN_FILE_NAME)}; terminal-mcp client-config http prints it`;
if (oauthOn) row('', gatewayAuth.token ? `protected by OAuth through the tunnel; on loopback also by the bearer token (${tokenWhere})` : 'protected by OAuth');
else if (gatewayAuth.token) row('', `protected by a bearer token (${tokenWhere})`);
else row('', 'OPEN: no token, no OAuth: every local user can read and type through it (TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1)');
row('Observer', `${observer.url}    read-only, OAuth: claude.ai through a tunnel (docs/claude-web-connector.md)`);
row('Dashboard', web.url);
row('Notifier', `pid ${children.find((c) => c.name === 'notifier')?.proc.pid ?? '?'}; sends notices to the configured channels over HTTP (the broker opens no network connection)`);
if (existsSync(bootstrap)) row('', `first sign-in: user "admin", one-time password in ${bootstrap}`);
say('');
say('Connect a client (absolute paths, no npx):');
say('  terminal-mcp client-config claude-desktop | claude-code | codex | cursor | chatgpt | http');
say('Inspect or stop:  terminal-mcp status | terminal-mcp doctor | terminal-mcp stop');
say(`  (terminal-mcp is node_modules/.bin/terminal-mcp, or: node ${launcher})`);
say('');
say('Ctrl-C stops everything this npm start started.');
