// Guards the secret entry's ssh rule on real facts (issue 45): a real ssh on a private tmux server against a real loopback sshd. At its own passphrase prompt the terminal reads echo off + canonical and ssh is blocked reading it, and the rule admits it; once connected, a remote shell's `read -s` behind it (with a remote terminal, or without one after `stty -echo`) is refused, whatever the screen shows.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdUnavailable, startSshd, type TestSshd } from '../../../../../test/src/helpers/sshd.js';
import { startTmuxServer, type TmuxTestServer } from '../../../../../test/src/helpers/tmux-server.js';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';
import { DEFAULT_CREDENTIAL_PROGRAMS, judgeCredentialReader, remoteSessionReader } from '../../policy/credential-reader.js';
import { parseSttyModes, readTerminalRead } from './terminal-read.js';
import { readPaneProcessTree } from './process-tree.js';

const unavailable = sshdUnavailable();
if (unavailable !== undefined) console.log(`skipping the ssh terminal-read test: ${unavailable}`);

let sshd: TestSshd;
let tmux: TmuxTestServer;
const dir = mkdtempSync(join(tmpdir(), 'tmcp-terminal-read-'));
const harvest = join(dir, 'harvest');
const PASSPHRASE = 'Quartz-Lantern-4471';

beforeAll(async () => {
  if (unavailable !== undefined) return;
  sshd = await startSshd();
  tmux = await startTmuxServer();
  // The server's client key, with a passphrase: ssh then asks for it on the terminal.
  copyFileSync(sshd.clientKey, join(dir, 'locked_key'));
  execFileSync('chmod', ['600', join(dir, 'locked_key')]);
  execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', PASSPHRASE, '-f', join(dir, 'locked_key')], { stdio: 'ignore' });
}, 60_000);

afterAll(async () => {
  await tmux?.kill();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sshArgs = (key: string, extra: string) =>
  `ssh -i ${key} -o IdentitiesOnly=yes -o UserKnownHostsFile=${sshd.knownHosts} -o StrictHostKeyChecking=yes -p ${sshd.port} ${extra} ${sshd.destination.replace(/:\d+$/, '')}`;

/** A bash in a new session, the line typed at its prompt, then the judgement once `shown` is on the screen. */
async function judgeAfter(session: string, line: string, shown: RegExp) {
  await tmux.newSession(session, "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i", { width: 200, height: 30 });
  const screen = () => tmux.tmux(['capture-pane', '-p', '-t', `=${session}:`]);
  await waitFor(`${session} prompt`, async () => (await screen()).includes('$'), 20_000, 50);
  await tmux.tmux(['send-keys', '-t', `=${session}:`, '-l', line]);
  await tmux.tmux(['send-keys', '-t', `=${session}:`, 'Enter']);
  await waitFor(`${session}: ${shown}`, async () => shown.test(await screen()), 30_000, 50);
  const panePid = Number((await tmux.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'])).trim());
  // The screen shows the prompt a moment before ssh blocks in its read: wait for the facts
  // to settle on one program holding the terminal, then judge what the rule would.
  let verdict: ReturnType<typeof judgeCredentialReader> | undefined;
  let terminal: Awaited<ReturnType<typeof readTerminalRead>> | undefined;
  await waitFor(`${session}: ssh alone holds the terminal`, async () => {
    const facts = await readPaneProcessTree(panePid, 'ssh');
    const reader = remoteSessionReader(facts);
    if (reader === null) return false;
    terminal = await readTerminalRead(panePid, reader.pid);
    verdict = judgeCredentialReader(facts, DEFAULT_CREDENTIAL_PROGRAMS, terminal);
    return terminal.wait !== null && terminal.wait !== 'other';
  }, 20_000, 50);
  return { verdict: verdict as ReturnType<typeof judgeCredentialReader>, terminal, screen, pane: `=${session}:` };
}

describe.skipIf(unavailable !== undefined)('the secret entry and ssh over a real loopback sshd', () => {
  it("admits ssh at its own passphrase prompt (echo off, canonical, blocked reading the terminal), and the answer logs in", async () => {
    const { verdict, terminal, screen, pane } = await judgeAfter('ssh-prompt', sshArgs(join(dir, 'locked_key'), '-tt'), /Enter passphrase for key/);
    expect(terminal).toEqual({ mode: { echo: false, canonical: true }, wait: 'terminal' });
    expect(verdict).toMatchObject({ admitted: true, reason: expect.stringContaining('credential program') });
    await tmux.tmux(['send-keys', '-t', pane, '-l', PASSPHRASE]);
    await tmux.tmux(['send-keys', '-t', pane, 'Enter']);
    await tmux.tmux(['send-keys', '-t', pane, '-l', 'echo logged-$((6*7))']);
    await tmux.tmux(['send-keys', '-t', pane, 'Enter']);
    await waitFor('the remote shell answers', async () => (await screen()).includes('logged-42'), 30_000, 50);
  }, 90_000);

  it("refuses a connected ssh whose remote shell prints a sudo prompt and reads with read -s (remote terminal: raw mode here)", async () => {
    const remote = `"read -rs -p '[sudo] password for root: ' P; echo \\"\\$P\\" > ${harvest}"`;
    const { verdict, terminal } = await judgeAfter('ssh-remote-read', `${sshArgs(sshd.clientKey, '-tt')} ${remote}`, /^\[sudo\] password for root:/m);
    expect(terminal?.mode).toEqual({ echo: false, canonical: false });
    expect(verdict).toMatchObject({ admitted: false, reason: expect.stringContaining('is connected: the terminal is in raw mode') });
    expect(existsSync(harvest)).toBe(false);
  }, 90_000);

  it('refuses a connected ssh without a remote terminal after `stty -echo` (the local mode of a prompt, but ssh polls its connection)', async () => {
    // Without a remote terminal bash's read prints no prompt: printf draws it.
    const remote = `"printf '[sudo] password for root: '; read -r P; echo \\"\\$P\\" > ${harvest}"`;
    const { verdict, terminal } = await judgeAfter('ssh-no-tty', `stty -echo; ${sshArgs(sshd.clientKey, '-T')} ${remote}`, /^\[sudo\] password for root:/m);
    expect(terminal).toEqual({ mode: { echo: false, canonical: true }, wait: 'poll' });
    expect(verdict).toMatchObject({ admitted: false, reason: expect.stringContaining('waiting on its connection') });
  }, 90_000);
});

describe('parseSttyModes', () => {
  it('reads echo and icanon from stty -a, and nothing from text without them', () => {
    expect(parseSttyModes('speed 38400 baud; line = 0;\n-parenb -parodd cs8\nisig icanon iexten -echo echoe echok')).toEqual({ echo: false, canonical: true });
    expect(parseSttyModes('isig -icanon echo')).toEqual({ echo: true, canonical: false });
    expect(parseSttyModes('stty: /dev/pts/9: No such file or directory')).toBeNull();
  });
});
