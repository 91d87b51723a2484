// The check-then-paste race (issue 24, finding 7): the pane's foreground program changes after the gates authorized a send and before tmux pastes. tmux checks the authorized pane pid, copy mode and foreground name in the same step as the paste (and, for terminal_run's line, its Enter), so nothing reaches the new program and no buffer or option is left behind.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { createPaneDelivery, type AuthorizedForeground } from './deliver.js';

const socket = `tmcp-test-deliver-${process.pid}-${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'tmcp-deliver-'));
const env = { ...process.env, TMUX: undefined, TMUX_PANE: undefined };
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8' }).trim();
let paneId: string;

beforeAll(() => {
  tmux('new-session', '-d', '-s', 'race', '-x', '100', '-y', '20', 'env -i PATH=/usr/bin:/bin bash --norc --noprofile');
  paneId = tmux('display-message', '-p', '-t', 'race', '#{pane_id}');
  // A stand-in for a guarded reader (ssh, sudo, `read -s pw`): it keeps the first line it reads.
  // It writes a temp file and renames it, so the file the test waits for appears whole (a plain `>` creates it empty first: CI read '' once).
  writeFileSync(join(dir, 'reader'), `#!/bin/sh\nIFS= read -r line\nprintf '%s\\n' "$line" > ${dir}/read-by-reader.tmp\nmv ${dir}/read-by-reader.tmp ${dir}/read-by-reader\n`);
  chmodSync(join(dir, 'reader'), 0o755);
});
afterAll(() => {
  try {
    // kill-server can leave its socket file behind: remove it too (the leftover check names it).
    const socketPath = tmux('display-message', '-p', '#{socket_path}');
    tmux('kill-server');
    rmSync(socketPath, { force: true });
  } catch {
    // already gone
  }
  rmSync(dir, { recursive: true, force: true });
});

const current = () => tmux('display-message', '-p', '-t', paneId, '#{pane_current_command}');

describe('delivery checks the authorized foreground at the instant of pasting', { timeout: 60_000 }, () => {
  it('pastes into the foreground the gates saw', async () => {
    const delivery = createPaneDelivery({ socketName: socket });
    await waitFor('the shell in the pane', () => current() === 'bash', 20_000);
    const facts = (await delivery.readIdentity(paneId))!;
    const expected: AuthorizedForeground = { panePid: facts.panePid, currentCommand: facts.currentCommand, inMode: facts.inMode };
    expect(await delivery.pasteText(paneId, 'echo pasted-$((40+2))', expected)).toEqual({ ok: true });
    expect(await delivery.pressKeys(paneId, ['Enter'], expected)).toEqual({ ok: true });
    await waitFor('the pasted command to run', () => tmux('capture-pane', '-p', '-t', paneId).includes('pasted-42'), 20_000);
    // terminal_run's line: paste and Enter in one checked step.
    expect(await delivery.pasteLine(paneId, 'echo lined-$((40+3))', expected)).toEqual({ ok: true });
    await waitFor('the pasted line to run', () => tmux('capture-pane', '-p', '-t', paneId).includes('lined-43'), 20_000);
    expect(tmux('list-buffers')).toBe('');
    expect(tmux('show-options', '-p', '-t', paneId)).not.toContain('@tmcp-input-foreground');
  });

  it('pastes nothing, and presses no key, when another program took the foreground after the check', async () => {
    const delivery = createPaneDelivery({ socketName: socket });
    await waitFor('the shell in the pane', () => current() === 'bash', 20_000);
    // The gates authorize the send while the shell is in the foreground...
    const facts = (await delivery.readIdentity(paneId))!;
    const expected: AuthorizedForeground = { panePid: facts.panePid, currentCommand: facts.currentCommand, inMode: facts.inMode };
    // ...then, before the paste, a guarded reader takes the terminal.
    tmux('send-keys', '-t', paneId, '-l', `${dir}/reader`);
    tmux('send-keys', '-t', paneId, 'Enter');
    await waitFor('the reader in the foreground', () => current() !== 'bash', 20_000);

    const pasted = await delivery.pasteText(paneId, 'hunter2\n', expected);
    const pressed = await delivery.pressKeys(paneId, ['Enter'], expected);
    const lined = await delivery.pasteLine(paneId, 'hunter3', expected);
    // The reader gets a line of ours; had the paste (or the Enter) landed, it would hold that.
    tmux('send-keys', '-t', paneId, '-l', 'control-line');
    tmux('send-keys', '-t', paneId, 'Enter');
    await waitFor('the reader to take a line', () => existsSync(join(dir, 'read-by-reader')), 20_000);
    expect(readFileSync(join(dir, 'read-by-reader'), 'utf8')).toBe('control-line\n');
    expect(pasted).toMatchObject({ ok: false, delivered: 'no', changed: true });
    expect(pressed).toMatchObject({ ok: false, delivered: 'no', changed: true });
    expect(lined).toMatchObject({ ok: false, delivered: 'no', changed: true });
    expect(tmux('list-buffers')).toBe('');
    expect(tmux('show-options', '-p', '-t', paneId)).not.toContain('@tmcp-input-foreground');
  });
});
