// Texts, keys and terminal_run's line through the broker's control client (deliver.ts checkedByControl): hostile lines (`;`, `$()`, quotes, `'`, backslashes, `#{}`/`#()`, braces, `~`, `%if`, a leading `-`, non-ASCII, a long line of quotes) arrive in the pane byte for byte, with their Enter; nothing is pasted (and no buffer or option is left) when another program took the foreground after the check; a line with a tab, and a closed control client, go the spawned way and arrive too.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from './adapter.js';
import { createPaneDelivery, type AuthorizedForeground, type PaneDelivery } from './deliver.js';

const socket = `tmcp-test-deliverc-${process.pid}-${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'tmcp-deliverc-'));
const env = { ...process.env, TMUX: undefined, TMUX_PANE: undefined };
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8' }).trim();
const received = join(dir, 'received');
let paneId: string;
let adapter: ControlModeTmuxAdapter;
let delivery: PaneDelivery;
let controlOnly: PaneDelivery;

/** A reader that keeps every line it reads: what the pane's program got. */
const readerScript = join(dir, 'keep-lines');

beforeAll(async () => {
  writeFileSync(readerScript, `#!/bin/sh\nexec cat > ${received}\n`);
  chmodSync(readerScript, 0o755);
  tmux('new-session', '-d', '-s', 'ctl', '-x', '200', '-y', '20', readerScript);
  paneId = tmux('display-message', '-p', '-t', 'ctl', '#{pane_id}');
  adapter = createTmuxAdapter({ socketName: socket });
  await adapter.listSessions();
  expect(await adapter.waitUntilConnected(60_000)).toBe(true);
  // Its spawned way names a server that does not exist: a line typed through it went by
  // the control client.
  controlOnly = createPaneDelivery({ socketName: `${socket}-none`, tmux: adapter, control: adapter.inputControl });
  delivery = createPaneDelivery({ socketName: socket, tmux: adapter, control: adapter.inputControl });
  await waitFor('cat in the foreground', () => tmux('display-message', '-p', '-t', paneId, '#{pane_current_command}') === 'cat', 20_000);
});
afterAll(async () => {
  await adapter?.close();
  try {
    const socketPath = tmux('display-message', '-p', '#{socket_path}');
    tmux('kill-server');
    rmSync(socketPath, { force: true });
  } catch {
    // already gone
  }
  rmSync(dir, { recursive: true, force: true });
});

const expectedNow = async (): Promise<AuthorizedForeground> => {
  const facts = (await delivery.readIdentity(paneId))!;
  return { panePid: facts.panePid, currentCommand: facts.currentCommand, inMode: facts.inMode };
};
const receivedLines = () => (existsSync(received) ? readFileSync(received, 'utf8').split('\n').slice(0, -1) : []);

const HOSTILE = [
  `echo "a;b" 'c'\\''d' $(echo sub) \`echo tick\` ; display-message -p PWNED`,
  `x' ; display-message -p PWNED ; set-buffer -b z '`,
  `-x --flag`,
  `--`,
  `%if 1`,
  `#{pane_id} #(touch ${dir}/pwned) { } } {`,
  `~ $HOME \\ \\\\ \\' \\n "unterminated`,
  `ünïcødé ✓ 日本語`,
  `'`,
  `;`,
  `'`.repeat(900) + ';'.repeat(100),
];

describe('terminal_run line through the control client', { timeout: 120_000 }, () => {
  it('types hostile lines exactly, each with its Enter, and leaves no buffer or option', async () => {
    for (const line of HOSTILE) expect(await controlOnly.pasteLine(paneId, line, await expectedNow())).toEqual({ ok: true });
    await waitFor('every line read', () => receivedLines().length >= HOSTILE.length, 60_000, 50);
    expect(receivedLines()).toEqual(HOSTILE);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(tmux('list-buffers')).toBe('');
    expect(tmux('show-options', '-p', '-t', paneId)).not.toContain('@tmcp-input-foreground');
  });

  it('pastes hostile texts and presses keys exactly through it, and leaves no buffer or option', async () => {
    const before = receivedLines().length;
    // A text without Enter, then the Enter as a key press: each one control-mode line.
    for (const text of HOSTILE) {
      expect(await controlOnly.pasteText(paneId, text, await expectedNow())).toEqual({ ok: true });
      expect(await controlOnly.pressKeys(paneId, ['Enter'], await expectedNow())).toEqual({ ok: true });
    }
    await waitFor('every text read', () => receivedLines().length >= before + HOSTILE.length, 60_000, 50);
    expect(receivedLines().slice(before)).toEqual(HOSTILE);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(tmux('list-buffers')).toBe('');
    expect(tmux('show-options', '-p', '-t', paneId)).not.toContain('@tmcp-input-foreground');
    // A newline, a tab or more than 4 KB cannot travel on a control line: not by control.
    for (const text of ['two\nlines', 'with\ttab', 'x'.repeat(4097)]) {
      expect(await controlOnly.pasteText(paneId, text, await expectedNow()), text.slice(0, 12)).toMatchObject({ ok: false, delivered: 'no' });
    }
  });

  it('goes the spawned way for a line with a tab, and when the control client is closed', async () => {
    const before = receivedLines().length;
    expect(await controlOnly.pasteLine(paneId, 'with\ttab', await expectedNow())).toMatchObject({ ok: false, delivered: 'no' });
    expect(await delivery.pasteLine(paneId, 'with\ttab', await expectedNow())).toEqual({ ok: true });
    const closed = createTmuxAdapter({ socketName: socket });
    await closed.close();
    expect(closed.inputControl([{ command: 'display-message -p x' }])).toBeNull();
    const spawned = createPaneDelivery({ socketName: socket, control: closed.inputControl });
    expect(await spawned.pasteLine(paneId, 'by-spawn', await expectedNow())).toEqual({ ok: true });
    await waitFor('both lines read', () => receivedLines().length >= before + 2, 60_000, 50);
    expect(receivedLines().slice(before)).toEqual(['with\ttab', 'by-spawn']);
  });

  it('pastes nothing when another program took the foreground after the check', async () => {
    const expected = await expectedNow();
    // The gates saw cat; now a reader of its own takes the terminal.
    const other = join(dir, 'other');
    writeFileSync(other, `#!/bin/sh\nIFS= read -r line\nprintf '%s\\n' "$line" > ${dir}/read-by-other.tmp\nmv ${dir}/read-by-other.tmp ${dir}/read-by-other\nexec sleep 600\n`);
    chmodSync(other, 0o755);
    tmux('respawn-pane', '-k', '-t', paneId, `sh -c 'exec ${other}'`);
    await waitFor('the other reader in the foreground', () => tmux('display-message', '-p', '-t', paneId, '#{pane_current_command}') !== 'cat', 20_000);
    const moved = { ...expected, panePid: Number(tmux('display-message', '-p', '-t', paneId, '#{pane_pid}')) };
    expect(await controlOnly.pasteLine(paneId, 'hunter2', moved)).toMatchObject({ ok: false, delivered: 'no', changed: true });
    expect(await controlOnly.pasteText(paneId, 'hunter3', moved)).toMatchObject({ ok: false, delivered: 'no', changed: true });
    expect(await controlOnly.pressKeys(paneId, ['y', 'Enter'], moved)).toMatchObject({ ok: false, delivered: 'no', changed: true });
    tmux('send-keys', '-t', paneId, '-l', 'control-line');
    tmux('send-keys', '-t', paneId, 'Enter');
    await waitFor('the other reader to take a line', () => existsSync(join(dir, 'read-by-other')), 20_000);
    expect(readFileSync(join(dir, 'read-by-other'), 'utf8')).toBe('control-line\n');
    expect(tmux('list-buffers')).toBe('');
    expect(tmux('show-options', '-p', '-t', paneId)).not.toContain('@tmcp-input-foreground');
  });
});
