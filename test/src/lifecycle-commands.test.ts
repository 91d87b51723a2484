// Guards the operator's lifecycle commands: `terminal-mcp status` reports the config the running broker enforces (transcripts' caps and what they take on disk), `doctor` prints one line per check with a fix, `client-config` prints absolute-path snippets (never npx), `stop` stops the broker.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { cleanEnv, runNode, waitFor } from './helpers/run-node.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
let tmux: TmuxTestServer;
let broker: BrokerProcess;
const root = mkdtempSync(join(tmpdir(), 'tmcp-cmds-'));
const CONFIG = "permissions: { terminal_read: true, terminal_input: true }\nallowed_session_patterns: ['zeta-*']\nlog_level: warn\n";

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('zeta-1', 'bash --norc --noprofile');
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
});
afterAll(async () => {
  await broker?.stop();
  await tmux?.kill();
  rmSync(root, { recursive: true, force: true });
});

describe('terminal-mcp status', () => {
  it('reports the running broker and the config it enforces', async () => {
    const r = await runNode([CLI, 'status', '--json'], broker.env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.broker).toMatchObject({ running: true, pid: broker.pid, config_path: broker.env.TERMINAL_MCP_CONFIG, idle_exit_seconds: 0, ready: true });
    expect(s.broker.config).toMatchObject({ terminal_read: true, terminal_input: true, allowed_session_patterns: ['zeta-*'] });
    expect(s.sockets.map((x: { role: string; answers: boolean }) => `${x.role}:${x.answers}`)).toEqual(['gateway:true', 'observer:true', 'web:true', 'notifier:true']);
    // No notifier runs here: the broker says so, and what waits for it.
    expect(s.broker.notifier).toEqual({ connected: false, waiting: 0 });
    expect(s.tmux.reachable).toBe(true);
    const human = await runNode([CLI, 'status'], broker.env);
    expect(human.stdout).toMatch(new RegExp(`broker: +running, pid ${broker.pid}`));
    expect(human.stdout).toContain('read on, input on');
    expect(human.stdout).toContain('readable sessions: zeta-*');
    expect(human.stdout).toMatch(/notifier: +NOT connected \(start terminal-mcp-notifier: npm start or its systemd unit\), no notice waiting/);
    // Recording is on by default, bounded, and its disk use shown.
    expect(human.stdout).toContain('transcripts: on, at most 8 MB per session and 256 MB in all, kept 14 days after a session ends');
    await waitFor('zeta-1 recorded', async () => JSON.parse((await runNode([CLI, 'status', '--json'], broker.env)).stdout).transcripts.stored === 1);
    expect((await runNode([CLI, 'status'], broker.env)).stdout).toMatch(/transcripts: +1 stored, [\d.]+ (B|KB) of 256 MB on disk/);
  });

  it('exits 3 and says so when no broker runs', async () => {
    const env = cleanEnv({ TERMINAL_MCP_STATE_DIR: join(root, 'none/state'), TERMINAL_MCP_SOCKET_DIR: join(root, 'none/run'), TERMINAL_MCP_TMUX_SOCKET: tmux.socketName });
    const r = await runNode([CLI, 'status'], env);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/broker: +not running/);
  });
});

describe('terminal-mcp doctor', () => {
  it('prints one line per check, and a fix for each problem', async () => {
    const r = await runNode([CLI, 'doctor'], broker.env);
    const names = JSON.parse((await runNode([CLI, 'doctor', '--json'], broker.env)).stdout).map((c: { name: string }) => c.name);
    expect(names).toEqual(['node', 'tmux', 'tmux server', 'bins', 'state dir', 'socket dir', 'stores', 'port gateway', 'port observer', 'port web', 'config', 'broker']);
    expect(r.stdout.trim().split('\n')).toHaveLength(names.length);
    expect(r.stdout).toMatch(/^ok +stores +(\d+) of \1 open cleanly$/m);
    expect(r.stdout).toMatch(/^ok +config +.* is valid$/m);
    for (const line of r.stdout.trim().split('\n')) if (!line.startsWith('ok')) expect(line).toContain('-- fix: ');
  });

  it('fails on an invalid config, names the key, and warns that the running broker enforces something else', async () => {
    const bad = join(root, 'bad.yaml');
    writeFileSync(bad, 'max_capture_lines: many\n');
    const r = await runNode([CLI, 'doctor'], { ...broker.env, TERMINAL_MCP_CONFIG: bad });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL +config +.*max_capture_lines.* -- fix: /m);
    const other = join(root, 'other.yaml');
    writeFileSync(other, "allowed_session_patterns: ['other-*']\n");
    const w = await runNode([CLI, 'doctor'], { ...broker.env, TERMINAL_MCP_CONFIG: other });
    expect(w.stdout).toMatch(/^WARN +broker +running, pid \d+, with a config that differs .* -- fix: terminal-mcp stop/m);
  });
});

describe('terminal-mcp client-config', () => {
  it.each(['claude-desktop', 'cursor'])('%s: JSON with node and the launcher as absolute paths', async (client) => {
    const r = await runNode([CLI, 'client-config', client], broker.env);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout.split('\n').filter((l) => !l.startsWith('#')).join('\n'));
    const server = json.mcpServers['terminal-mcp'];
    expect(server.command).toBe(process.execPath);
    expect(server.args).toEqual([CLI]);
    expect(server.env.TERMINAL_MCP_SOCKET_DIR).toBe(broker.socketDir);
  });

  it.each(['claude-code', 'codex', 'chatgpt'])('%s: names absolute paths and never npx', async (client) => {
    const r = await runNode([CLI, 'client-config', client], broker.env);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\bnpx\b/);
    if (client === 'chatgpt') expect(r.stdout).toContain(repoPath('docs/chatgpt-connector.md'));
    else expect(r.stdout).toContain(CLI);
  });

  it('carries TMUX_TMPDIR and TERMINAL_MCP_TMUX_SOCKET, so a desktop client\'s broker finds the user\'s tmux', async () => {
    const r = await runNode([CLI, 'client-config', 'claude-desktop'], { ...broker.env, TMUX_TMPDIR: '/run/user/4242/tmux-home' });
    const json = JSON.parse(r.stdout.split('\n').filter((l) => !l.startsWith('#')).join('\n'));
    expect(json.mcpServers['terminal-mcp'].env).toMatchObject({ TMUX_TMPDIR: '/run/user/4242/tmux-home', TERMINAL_MCP_TMUX_SOCKET: broker.env.TERMINAL_MCP_TMUX_SOCKET });
    const codex = await runNode([CLI, 'client-config', 'codex'], { ...broker.env, TMUX_TMPDIR: '/run/user/4242/tmux-home' });
    expect(codex.stdout).toContain('"TMUX_TMPDIR" = "/run/user/4242/tmux-home"');
  });

  it('refuses an unknown client with the list of known ones', async () => {
    const r = await runNode([CLI, 'client-config', 'emacs'], broker.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('claude-desktop | claude-code | codex | cursor | chatgpt');
  });
});

describe('terminal-mcp stop', () => {
  it('stops the broker; a second stop finds nothing', async () => {
    const own = await startBrokerProcess({ tmuxSocket: tmux.socketName });
    try {
      const r = await runNode([CLI, 'stop'], own.env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`stopped broker (pid ${own.pid})`);
      await waitFor('the broker to exit', async () => (await own.exited()).code !== undefined);
      const again = await runNode([CLI, 'stop'], own.env);
      expect(again.stdout).toMatch(/nothing was running/);
    } finally {
      await own.stop();
    }
  });
});
