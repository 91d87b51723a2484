// Guards terminal-mcp-registry cleanup (real registry.db, real tmux, the built bin as a process): a dry run changes nothing (not a byte, no directory made), --apply needs the reviewed count and refuses a mismatch without changing anything, live and protected sessions and curated rows are never selected, and applied rows become DELETED tombstones naming who and when.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { openStore } from '../store/database.js';
import { registryStoreDefinition, sessionRegistryStore } from '../store/registry-store.js';
import { runRegistryCleanup } from './registry-cleanup-cli.js';

const BIN = fileURLToPath(new URL('../../../dist/bin/registry-cli.js', import.meta.url));
const DAY = 86_400_000;

let server: TmuxTestServer;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startTmuxServer();
  await server.newSession('agent-alive', 'exec sleep 3600');
});
afterAll(async () => {
  await server?.kill();
});

/** Rows: four gone for good (selectable), and one each held back by every guard. */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-registry-cli-'));
  const config = join(root, 'config.yaml');
  writeFileSync(config, 'session_lifecycle:\n  protected_sessions: [terminal-mcp]\n');
  env = { ...process.env, TERMINAL_MCP_STATE_DIR: join(root, 'state'), TERMINAL_MCP_CONFIG: config, TERMINAL_MCP_TMUX_SOCKET: server.socketName };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const db = openStore(join(root, 'state'), registryStoreDefinition);
  const store = sessionRegistryStore(db);
  const old = Date.now() - 30 * DAY;
  const names = ['gone-1', 'gone-2', 'gone-3', 'gone-4', 'agent-alive', 'terminal-mcp', 'with-notes', 'with-conversation'];
  store.reconcile(
    null,
    names.map((name, i) => ({ name, serverPid: 1, sessionId: `$${i}`, sessionCreated: 1000 + i, currentCommand: 'bash' })),
    1,
    old,
  );
  store.reconcile(null, [{ name: 'recent', serverPid: 1, sessionId: '$99', sessionCreated: 5000, currentCommand: 'bash' }], 1, Date.now() - DAY);
  store.reconcile(null, [], 1, Date.now());
  // A node's live session (never a cleanup candidate): annotated by its node:session name.
  store.reconcile('gpu', [{ name: 'remote-1', serverPid: 1, sessionId: '$0', sessionCreated: 1000, currentCommand: 'bash' }], 1, old);
  db.prepare("UPDATE session_registry SET notes = 'real agent, keep' WHERE name = 'with-notes'").run();
  db.prepare("UPDATE session_registry SET conversation_id = 'conv-1' WHERE name = 'with-conversation'").run();
  db.close();
  return () => rmSync(root, { recursive: true, force: true });
});

function statuses(): Record<string, string> {
  const db = openStore(join(root, 'state'), registryStoreDefinition);
  try {
    return Object.fromEntries(sessionRegistryStore(db).list().map((r) => [r.name, r.status]));
  } finally {
    db.close();
  }
}

describe('terminal-mcp-registry cleanup', { timeout: 180_000 }, () => {
  it('plans without changing anything, naming the guard that holds each row back', async () => {
    const before = statuses();
    const plan = JSON.parse(await runRegistryCleanup(['cleanup', '--json'], env)) as { applied: boolean; selected: { name: string }[]; needs_review: { name: string; guard: string }[] };
    expect(plan.applied).toBe(false);
    expect(plan.selected.map((r) => r.name).sort()).toEqual(['gone-1', 'gone-2', 'gone-3', 'gone-4']);
    expect(Object.fromEntries(plan.needs_review.map((r) => [r.name, r.guard]))).toEqual({
      'agent-alive': 'LIVE_NOW',
      'terminal-mcp': 'PROTECTED',
      'with-notes': 'HAS_NOTES',
      'with-conversation': 'HAS_CONVERSATION',
      recent: 'TOO_RECENT',
    });
    expect(await runRegistryCleanup(['cleanup'], env)).toContain('4 row(s) would be tombstoned; 5 held back');
    expect(await runRegistryCleanup(['cleanup', '--verbose'], env)).toContain('[LIVE_NOW: a tmux session by that name is alive now]');
    expect(statuses()).toEqual(before);
  });

  it('writes nothing on a dry run: the store file is untouched, and no state directory is made', async () => {
    const file = join(root, 'state', 'registry.db');
    const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs, entries: readdirSync(join(root, 'state')).sort() };
    await runRegistryCleanup(['cleanup', '--verbose'], env);
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
    expect(readdirSync(join(root, 'state')).sort()).toEqual(before.entries);
    const fresh = join(root, 'never-made');
    expect(await runRegistryCleanup(['cleanup'], { ...env, TERMINAL_MCP_STATE_DIR: fresh })).toContain('0 row(s) would be tombstoned');
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses --apply without the reviewed count, or with a count that no longer matches', async () => {
    const before = statuses();
    await expect(runRegistryCleanup(['cleanup', '--apply'], env)).rejects.toMatchObject({ exitCode: 2 });
    await expect(runRegistryCleanup(['cleanup', '--apply', '--confirm-count', '5'], env)).rejects.toMatchObject({ exitCode: 3 });
    await expect(runRegistryCleanup(['cleanup', '--apply', '--confirm-count', '3'], env)).rejects.toMatchObject({ exitCode: 3 });
    // The plan changes under the operator: a row gains a note after the review.
    const db = openStore(join(root, 'state'), registryStoreDefinition);
    db.prepare("UPDATE session_registry SET notes = 'keep' WHERE name = 'gone-4'").run();
    db.close();
    await expect(runRegistryCleanup(['cleanup', '--apply', '--confirm-count', '4'], env)).rejects.toMatchObject({ exitCode: 3 });
    expect(statuses()).toEqual(before);
  });

  it('applies exactly the reviewed plan as DELETED tombstones with who and when', async () => {
    const out = await runRegistryCleanup(['cleanup', '--apply', '--confirm-count', '4', '--actor', 'cli:ops'], env);
    expect(out).toContain('tombstoned 4 row(s) as DELETED (by cli:ops)');
    const db = openStore(join(root, 'state'), registryStoreDefinition);
    const rows = sessionRegistryStore(db).list();
    db.close();
    for (const r of rows.filter((x) => x.name.startsWith('gone-'))) {
      expect(r).toMatchObject({ status: 'DELETED', deletedBy: 'cli:ops', lastScreen: null });
      expect(r.deletedAt).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(statuses()).toMatchObject({ 'agent-alive': 'KILLED', 'terminal-mcp': 'KILLED', 'with-notes': 'KILLED', recent: 'KILLED' });
    // Nothing left to do; a second apply of the old count is refused.
    expect(await runRegistryCleanup(['cleanup'], env)).toContain('0 row(s) would be tombstoned');
    await expect(runRegistryCleanup(['cleanup', '--apply', '--confirm-count', '4'], env)).rejects.toMatchObject({ exitCode: 3 });
  });

  it('annotates a row with notes and a conversation id, which holds it back from cleanup', async () => {
    expect(await runRegistryCleanup(['annotate', 'gone-1', '--notes', 'the real build agent', '--conversation-id', 'conv-9'], env)).toContain('annotated "gone-1"');
    const plan = JSON.parse(await runRegistryCleanup(['cleanup', '--json'], env)) as { selected: { name: string }[]; needs_review: { name: string; guard: string }[] };
    expect(plan.selected.map((r) => r.name).sort()).toEqual(['gone-2', 'gone-3', 'gone-4']);
    expect(plan.needs_review.find((r) => r.name === 'gone-1')?.guard).toBe('HAS_CONVERSATION');
    await runRegistryCleanup(['annotate', 'gone-1', '--conversation-id', ''], env);
    expect((JSON.parse(await runRegistryCleanup(['cleanup', '--json'], env)) as { needs_review: { name: string; guard: string }[] }).needs_review.find((r) => r.name === 'gone-1')?.guard).toBe('HAS_NOTES');
    await expect(runRegistryCleanup(['annotate', 'no-such', '--notes', 'x'], env)).rejects.toMatchObject({ exitCode: 1 });
    await expect(runRegistryCleanup(['annotate', 'gone-1'], env)).rejects.toMatchObject({ exitCode: 2 });
    // A node's row by node:session; the bare name is this host's, which has none.
    expect(await runRegistryCleanup(['annotate', 'gpu:remote-1', '--notes', 'on the gpu box'], env)).toContain('annotated "gpu:remote-1" (gpu:$0, ACTIVE)');
    await expect(runRegistryCleanup(['annotate', 'remote-1', '--notes', 'x'], env)).rejects.toMatchObject({ exitCode: 1 });
  });

  it('runs as the built bin with the same plan and exit codes', () => {
    const dry = spawnSync(process.execPath, [BIN, 'cleanup', '--json'], { env, encoding: 'utf8' });
    expect(dry.status, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { selected: unknown[] }).selected).toHaveLength(4);
    const refused = spawnSync(process.execPath, [BIN, 'cleanup', '--apply', '--confirm-count', '9'], { env, encoding: 'utf8' });
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain('refused: the plan now selects 4 row(s), not 9');
    expect(spawnSync(process.execPath, [BIN, 'nonsense'], { env, encoding: 'utf8' }).status).toBe(2);
  });
});
