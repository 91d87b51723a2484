// Guards backup and restore: `terminal-mcp backup` copies every store consistently while the broker runs and writes (and the config the running broker uses, also when the shell does not name it), `restore` refuses while a broker runs and refuses a tampered backup, and a broker started on the restored state dir reads everything back.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINDING_LIMITS } from '@terminal-mcp/contract';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { createOperatorAccount } from './helpers/operator-account.js';
import { repoPath } from './helpers/repo.js';
import { runNode } from './helpers/run-node.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';

const CLI = repoPath('services/broker/dist/effects/launch/terminal-mcp.js');
const WEBAUTH = repoPath('services/broker/dist/bin/webauth-cli.js');
let tmux: TmuxTestServer;
let broker: BrokerProcess | undefined;
let restored: BrokerProcess | undefined;
const root = mkdtempSync(join(tmpdir(), 'tmcp-bk-'));
/** A 1x1 PNG. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

beforeAll(async () => {
  tmux = await startTmuxServer();
  await tmux.newSession('test-backup', 'bash --norc --noprofile');
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: "allowed_session_patterns: ['test-*']\nlog_level: warn\n" });
});
afterAll(async () => {
  await restored?.stop();
  await broker?.stop();
  await tmux?.kill();
  rmSync(root, { recursive: true, force: true });
});

describe('terminal-mcp backup / restore', () => {
  it('backs up while the broker writes; a broker on the restored state reads it all back', async () => {
    const b = broker!;
    const client = createBrokerClient({ role: 'gateway', socketPath: join(b.socketDir, 'gateway.sock') });
    await createOperatorAccount(b.env, 'backup-op', 'correct horse battery staple 42');
    for (let i = 0; i < 5; i++) await client.bindings.bind.mutate({ binding: `before-${i}`, session: 'test-backup' });
    // A note with an image: notes.db and its file under notes_attachments/ travel together.
    const note = await client.notes.create.mutate({ title: 'kept across a restore' });
    const image = await client.notes.addAttachment.mutate({ id: note.id, data_base64: PNG_1X1 });

    // Writes keep going (new bindings; audited reads) for the whole backup. New bindings stop
    // short of the per-client cap (a fast broker would reach it before the backup ends);
    // the audited reads go on.
    // The writer yields between writes (a pause, not a timing assumption: writes go on for
    // as long as the backup runs, however long that is): a writer that never paused kept the
    // broker, and on a busy machine the backup beside it, from the CPU, and the test ran out
    // of time.
    const maxDuring = BINDING_LIMITS.maxPerActor - 10;
    let writing = true;
    let written = 0;
    let firstWritten!: () => void;
    const writingStarted = new Promise<void>((resolve) => (firstWritten = resolve));
    const writer = (async () => {
      while (writing) {
        if (written < maxDuring) {
          await client.bindings.bind.mutate({ binding: `during-${written}`, session: 'test-backup' });
          written++;
          firstWritten();
        }
        await client.sessions.tail.query({ session: 'test-backup', lines: 5 });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // The backup starts once writes are under way, so it always overlaps them.
    await writingStarted;
    const dir = join(root, 'backup-1');
    const backup = await runNode([CLI, 'backup', dir], b.env);
    writing = false;
    await writer;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(written).toBeGreaterThan(0);

    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.format).toBe('terminal-mcp-backup');
    const names = manifest.stores.map((s: { name: string }) => s.name).sort();
    expect(names).toEqual(['audit', 'bindings', 'grants', 'leases', 'notes', 'notify', 'oauth', 'registry', 'supervisor', 'webauth']);
    expect(manifest.attachments).toHaveLength(1);
    expect(manifest.attachments[0].file).toMatch(/^notes_attachments\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.png$/);
    for (const s of manifest.stores) {
      expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(s.schema_version).toBeGreaterThan(0);
    }
    expect(manifest.audit_key.bytes).toBe(32);
    expect(manifest.config.original_path).toBe(b.env.TERMINAL_MCP_CONFIG);

    // Restore refuses while this broker runs.
    const refused = await runNode([CLI, 'restore', dir], b.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/a broker is running \(pid \d+\).*stop it first/);

    // Into a fresh state dir, with no broker there.
    const freshState = join(root, 'fresh-state');
    const freshEnv = { ...b.env, TERMINAL_MCP_STATE_DIR: freshState, TERMINAL_MCP_SOCKET_DIR: join(root, 'fresh-run') };
    const restore = await runNode([CLI, 'restore', dir], freshEnv);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/restored .*bindings\.db.*audit-hmac\.key/);
    expect(restore.stderr).toMatch(/WARNING: .*grants\.db or oauth\.db.*revoked.*valid again/);
    expect(readFileSync(join(freshState, 'audit-hmac.key')).equals(readFileSync(join(b.stateDir, 'audit-hmac.key')))).toBe(true);

    restored = await startBrokerProcess({
      tmuxSocket: tmux.socketName,
      config: "allowed_session_patterns: ['test-*']\nlog_level: warn\n",
      env: { TERMINAL_MCP_STATE_DIR: freshState },
    });
    const again = createBrokerClient({ role: 'gateway', socketPath: join(restored.socketDir, 'gateway.sock') });
    const bindings = await again.bindings.list.query({});
    const bound = new Set(bindings.bindings.map((x) => x.binding));
    for (let i = 0; i < 5; i++) expect(bound.has(`before-${i}`)).toBe(true);
    // A consistent point in time: the "during" bindings it holds are a prefix of those written.
    const during = [...bound].filter((n) => n.startsWith('during-')).map((n) => Number(n.slice(7))).sort((x, y) => x - y);
    expect(during).toEqual(during.map((_, i) => i));
    const users = await runNode([WEBAUTH, 'list-users'], { ...restored.env });
    expect(users.stdout).toContain('backup-op');
    const back = await again.notes.get.query({ id: note.id });
    expect(back.title).toBe('kept across a restore');
    expect(back.attachments.map((a) => a.sha256)).toEqual([image.sha256]);
    expect(readFileSync(join(freshState, manifest.attachments[0].file)).equals(Buffer.from(PNG_1X1, 'base64'))).toBe(true);
    // Two brokers, a backup, two restores and a handful of CLI runs: 37 s at load 12 on 2
    // cores, and it ran out of 30 s and 120 s limits on busier runs. Sized for a machine
    // five times slower than that.
  }, 300_000);

  it('takes the config the running broker was started with when the shell does not name one', async () => {
    const dir = join(root, 'backup-shell-without-config');
    const shell = { ...broker!.env };
    delete shell.TERMINAL_MCP_CONFIG;
    const r = await runNode([CLI, 'backup', dir], shell);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`backing up the config of the running broker (pid ${broker!.pid}): ${broker!.env.TERMINAL_MCP_CONFIG}`);
    expect(r.stdout).toMatch(/ and the config to /);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.config.original_path).toBe(broker!.env.TERMINAL_MCP_CONFIG);
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toBe(readFileSync(broker!.env.TERMINAL_MCP_CONFIG!, 'utf8'));
  });

  it('refuses a backup whose files do not match the manifest, and restores nothing', async () => {
    const dir = join(root, 'backup-2');
    expect((await runNode([CLI, 'backup', dir], broker!.env)).code).toBe(0);
    writeFileSync(join(dir, 'grants.db'), 'tampered');
    const target = { ...broker!.env, TERMINAL_MCP_STATE_DIR: join(root, 'tamper-state'), TERMINAL_MCP_SOCKET_DIR: join(root, 'tamper-run') };
    const r = await runNode([CLI, 'restore', dir], target);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/grants\.db does not match its checksum/);
    expect(r.stderr).toContain('nothing was restored');
  });

  it('refuses to back up into a directory that is not empty', async () => {
    const dir = join(root, 'not-empty');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep-me'), 'x');
    const r = await runNode([CLI, 'backup', dir], broker!.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not empty/);
  });

  it('refuses to back up a state directory without stores (a wrong TERMINAL_MCP_STATE_DIR)', async () => {
    const r = await runNode([CLI, 'backup', join(root, 'backup-empty')], { ...broker!.env, TERMINAL_MCP_STATE_DIR: join(root, 'no-such-state') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing to back up/);
  });
});
