#!/usr/bin/env node
// `npm start`: runs the broker and the HTTP gateway on loopback with the safe default
// config (read on, input off), prints where they are, and stops both on Ctrl-C.
// Everything is configured by the usual TERMINAL_MCP_* environment variables.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { resolvePaths, socketPathFor } = await import(join(root, 'shared/contract/dist/index.js'));
const env = { ...process.env };
delete env.TMUX;
delete env.TMUX_PANE;
const paths = resolvePaths(env, homedir());
const gatewayPort = env.TERMINAL_MCP_GATEWAY_PORT || '8766';
const observerPort = env.TERMINAL_MCP_OBSERVER_PORT || '8767';
const observerUrl = `${(env.TERMINAL_MCP_OBSERVER_PUBLIC_URL || `http://127.0.0.1:${observerPort}`).replace(/\/+$/, '')}/mcp`;
const webPort = env.TERMINAL_MCP_WEB_PORT || '8768';
const webUrl = `http://127.0.0.1:${webPort}/`;

const children = [];
function run(name, script) {
  const child = spawn(process.execPath, [join(root, script)], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`terminal-mcp: ${name} exited (${signal ?? code}); stopping everything`);
      stop(code ?? 1);
    }
  });
  children.push(child);
  return child;
}

function socketAnswers(path) {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const timer = setTimeout(() => process.exit(code), 5000);
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r))))).then(() => {
    clearTimeout(timer);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

const gatewaySock = socketPathFor(paths.socketDir, 'gateway');
if (await socketAnswers(gatewaySock)) {
  console.error(`terminal-mcp: a broker is already running on ${paths.socketDir}; using it`);
} else {
  run('broker', 'services/broker/dist/main.js');
  const deadline = Date.now() + 15000;
  while (!(await socketAnswers(gatewaySock))) {
    if (Date.now() > deadline || stopping) {
      console.error('terminal-mcp: the broker did not start; see the log lines above');
      stop(1);
      await new Promise(() => {});
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
run('gateway', 'services/gateway/dist/bin/http.js');
run('observer', 'services/observer/dist/bin/observer.js');
run('web', 'web/dist/server/main.js');

const base = `http://127.0.0.1:${gatewayPort}`;
console.log(`
Terminal MCP is running (loopback only; input is off unless config.yaml enables it).

  MCP endpoint (Streamable HTTP):  ${base}/mcp
  Health:                          ${base}/health/ready
  Config file:                     ${paths.configPath ?? '(none: safe defaults)'}
  State directory:                 ${paths.stateDir}
  tmux server:                     ${paths.tmuxSocket ? `tmux -L ${paths.tmuxSocket}` : 'your default tmux server'}
  Observer MCP (read-only, OAuth): ${observerUrl}
  Dashboard (operator login):      ${webUrl}
    first sign-in: user "admin", password in ${join(paths.stateDir, 'webauth-bootstrap.txt')}
    (written once by the broker on first start; you must change it at first sign-in)

Point an MCP client at it:
  - HTTP clients: add a server with URL ${base}/mcp
  - Desktop clients (stdio): command "npx", args ["terminal-mcp"] run from ${root}
    (or "node ${join(root, 'services/broker/dist/effects/launch/terminal-mcp.js')}")
  - claude.ai / Claude apps: tunnel to 127.0.0.1:${observerPort}, set TERMINAL_MCP_OBSERVER_PUBLIC_URL,
    add the connector ${observerUrl} (docs/claude-web-connector.md)

Ctrl-C stops everything.
`);
if (!existsSync(join(root, 'services/gateway/dist/bin/http.js'))) console.error('terminal-mcp: the gateway is not built; run npm run build');
