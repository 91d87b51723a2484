// Guards pane status classification: agent CLI footers and menus, prompts only at the bottom, shell and REPL prompts, activity, copy mode, and UNKNOWN instead of a guess.
import { describe, expect, it } from 'vitest';
import { classifyPaneStatus, type PaneStatus } from './status.js';

/** A captured screen: the text's lines plus the blank rows capture-pane pads below the cursor. */
const pane = (text: string): string[] => [...text.split('\n'), '', '', ''];

interface Case {
  readonly command: string;
  readonly idle?: number;
  readonly copy?: boolean;
}

const CLAUDE_BUSY_BOXED = `> fix the failing test in parser.ts

⏺ I'll look at the parser tests first.

⏺ Bash(npm test -- parser)
  ⎿  Running…

✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)

╭──────────────────────────────────────────────────────╮
│ >                                                    │
╰──────────────────────────────────────────────────────╯
  ? for shortcuts`;

const CLAUDE_BUSY_RULES = `⏺ On it.

✶ Deliberating… (4s · ↓ 120 tokens · esc to interrupt)

────────────────────────────────────────────────────────
❯ 
────────────────────────────────────────────────────────
  ⏵⏵ bypass permissions on · esc to interrupt`;

const CLAUDE_BUSY_NO_HINT = `⏺ Update(src/mesh.rs)
  ⎿  Updated src/mesh.rs with 12 additions

✳ Simplifying recompute_tangents… (2m 18s · ↓ 4.8k tokens)
  ⎿  ☒ Read the mesh code
     ☐ Simplify recompute_tangents

────────────────────────────────────────────────────────
❯ 
────────────────────────────────────────────────────────`;

const CLAUDE_PERMISSION_BOXED = `⏺ I'll clean the build directory and rebuild.

╭────────────────────────────────────────────────────────────╮
│ Bash command                                               │
│                                                            │
│   rm -rf dist && npm run build                             │
│   Clean and rebuild the project                            │
│                                                            │
│ Do you want to proceed?                                    │
│ ❯ 1. Yes                                                   │
│   2. Yes, and don't ask again for npm run build commands   │
│   3. No, and tell Claude what to do differently (esc)      │
╰────────────────────────────────────────────────────────────╯`;

const CLAUDE_PERMISSION_EDIT = ` Edit file
 src/parser.ts
 ╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
  12 -  if (token === null) return;
  12 +  if (token === null) throw new ParseError('empty');
 ╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Do you want to make this edit to parser.ts?
 ❯ 1. Yes
   2. Yes, allow all edits during this session (shift+tab)
   3. No, and tell Claude what to do differently (esc)

 Esc to cancel · Tab to amend`;

const CLAUDE_QUESTION = `⏺ Which database should the tests use?

 ☐ Database

 Which database should the tests use?

 ❯ 1. SQLite
      Fast, file based
   2. Postgres
      Closer to production

 Enter to select · ↑/↓ to navigate · Esc to cancel`;

const CLAUDE_IDLE_BOXED = `⏺ All 42 tests pass. The fix was an off-by-one in the tokenizer.

╭──────────────────────────────────────────────────────╮
│ >                                                    │
╰──────────────────────────────────────────────────────╯
  ? for shortcuts`;

const CLAUDE_IDLE_RULES = `⏺ Done. I renamed the module and updated the imports.

✻ Worked for 3m 2s

────────────────────────────────────────────────────────
❯ 
────────────────────────────────────────────────────────
  ⏵⏵ accept edits on (shift+tab to cycle)`;

const CLAUDE_IDLE_BARE_BOX = `⏺ Ready for the next stage.

────────────────────────────────────────────────────────
❯ 
────────────────────────────────────────────────────────`;

const CLAUDE_IDLE_PROSE = `⏺ Here is the plan. Do you want me to proceed with the refactor?
  1. Rename the module
  2. Extract the parser
  Press esc to interrupt a running turn if it goes wrong; the password
  field needs permission from the admin before the new task starts.

╭──────────────────────────────────────────────────────╮
│ > _                                                  │
╰──────────────────────────────────────────────────────╯
  ? for shortcuts`;

const CODEX_BUSY = `› fix the tests

• Ran npm test
  └ 3 failed, 40 passed

• Working (5s • esc to interrupt)

› Ask Codex to do anything

  ? for shortcuts                                         100% context left`;

const CODEX_APPROVAL = `• I need to install a dependency.

  Would you like to run the following command?

  $ npm install left-pad

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for this command (a)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel`;

const CODEX_IDLE_OLD = `> Model changed to gpt-5-codex

▌ Find and fix a bug in @filename

 ⏎ send   ⌃J newline   ⌃T transcript   ⌃C quit`;

const CODEX_IDLE_NEW = `• All tests pass now.

› Ask Codex to do anything

  ? for shortcuts                                          92% context left`;

const TRACEBACK_THEN_PROMPT = `user@host:~/app$ python3 app.py
Traceback (most recent call last):
  File "/home/user/app/app.py", line 3, in <module>
    connect(password=os.environ["DB_PASSWORD"])
KeyError: 'DB_PASSWORD'
user@host:~/app$ `;

const CLAUDE_EXITED = `✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)

Total cost: $0.42
user@host:~/proj$ `;

const VIM = `# Notes
- buy milk
~
~
~
"notes.md" 2L, 22C`;

const HTOP = `  1  [|||||||||               23.4%]   Tasks: 112, 301 thr; 2 running
  Mem[||||||||||||||||||2.10G/7.68G]   Load average: 0.52 0.41 0.38
    PID USER      PRI  NI  VIRT   RES   SHR S CPU% MEM%   TIME+  Command
   1234 user       20   0  1.2G  200M  50M S  3.0  2.5  0:12.34 node
F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit`;

const MAKE_PROSE = `Checking password strength rules...
Requesting permission from the API...
Continue? [y/N] y
Creating new task for the scheduler
Building target all
[ 42%] Compiling src/main.c`;

const MENU_IN_PAGER = `## Release checklist
Do you want to proceed?
1. Yes
2. No
(END)`;

describe('classifyPaneStatus', () => {
  it.each<[string, string, Case, PaneStatus, string]>([
    // a. agent CLIs
    ['claude code busy (boxed input)', CLAUDE_BUSY_BOXED, { command: 'claude', idle: 0 }, 'RUNNING', 'claude code busy footer "esc to interrupt"'],
    ['claude code busy (rules, native build named by version)', CLAUDE_BUSY_RULES, { command: '2.1.12', idle: 0 }, 'RUNNING', 'claude code busy footer "esc to interrupt"'],
    ['claude code busy spinner without the hint', CLAUDE_BUSY_NO_HINT, { command: 'claude', idle: 30 }, 'RUNNING', 'claude code busy spinner "✳ Simplifying recompute_tangents… (2m 18s · ↓ 4.8k tokens)"'],
    ['claude code permission menu (boxed)', CLAUDE_PERMISSION_BOXED, { command: 'claude', idle: 40 }, 'WAITING_INPUT', 'claude code approval menu "Do you want to proceed?"'],
    ['claude code edit permission', CLAUDE_PERMISSION_EDIT, { command: 'node', idle: 40 }, 'WAITING_INPUT', 'claude code approval menu "Do you want to make this edit to parser.ts?"'],
    ['claude code question picker', CLAUDE_QUESTION, { command: 'claude', idle: 5 }, 'WAITING_INPUT', 'claude code menu "Enter to select"'],
    ['claude code idle (boxed input)', CLAUDE_IDLE_BOXED, { command: 'claude', idle: 0 }, 'IDLE', 'claude code idle footer "? for shortcuts"'],
    ['claude code idle (rules, mode footer)', CLAUDE_IDLE_RULES, { command: 'claude', idle: 300 }, 'IDLE', 'claude code idle footer "(shift+tab to cycle)"'],
    ['claude code idle (input box, no footer)', CLAUDE_IDLE_BARE_BOX, { command: 'claude', idle: 300 }, 'IDLE', 'claude code input box at the bottom'],
    ['claude code idle with prose about permission and interrupting', CLAUDE_IDLE_PROSE, { command: 'claude', idle: 2 }, 'IDLE', 'claude code idle footer "? for shortcuts"'],
    ['codex busy', CODEX_BUSY, { command: 'codex', idle: 0 }, 'RUNNING', 'codex busy footer "esc to interrupt"'],
    ['codex approval', CODEX_APPROVAL, { command: 'node', idle: 12 }, 'WAITING_INPUT', 'codex menu "Press enter to confirm or esc to cancel"'],
    ['codex idle (older footer)', CODEX_IDLE_OLD, { command: 'codex', idle: 90 }, 'IDLE', 'codex idle footer "⏎ send"'],
    ['codex idle (newer footer)', CODEX_IDLE_NEW, { command: 'codex', idle: 1 }, 'IDLE', 'codex idle footer "? for shortcuts"'],
    ['stale claude footer above a shell prompt after exit', CLAUDE_EXITED, { command: 'bash', idle: 2 }, 'IDLE', 'bash prompt at the bottom'],

    // b. interactive prompts at the bottom
    ['read -p "Continue? [y/N] "', 'user@host:~$ ./deploy.sh\nDeploying to prod\nContinue? [y/N] ', { command: 'bash', idle: 20 }, 'WAITING_INPUT', 'prompt "[y/N]" on the last line'],
    ['apt [Y/n]', 'After this operation, 12 MB will be used.\nDo you want to continue? [Y/n] ', { command: 'apt', idle: 8 }, 'WAITING_INPUT', 'prompt "[Y/n]" on the last line'],
    ['ssh host key (yes/no)', "The authenticity of host 'h (10.0.0.2)' can't be established.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ", { command: 'ssh', idle: 8 }, 'WAITING_INPUT', 'prompt "(yes/no/[fingerprint])" on the last line'],
    ['sudo password', '[sudo] password for alice: ', { command: 'sudo', idle: 3 }, 'WAITING_HUMAN', 'secret prompt "password for alice:" on the last line: a person answers it (terminal_request_human)'],
    ['ssh-keygen passphrase', 'Generating public/private ed25519 key pair.\nEnter passphrase (empty for no passphrase): ', { command: 'ssh-keygen', idle: 9 }, 'WAITING_HUMAN', 'secret prompt "passphrase (empty for no passphrase):" on the last line: a person answers it (terminal_request_human)'],
    ['key passphrase', "Enter passphrase for key '/home/u/.ssh/id_ed25519': ", { command: 'git', idle: 9 }, 'WAITING_HUMAN', 'secret prompt "passphrase for key \'/home/u/.ssh/id_ed25519\':" on the last line: a person answers it (terminal_request_human)'],
    ['Press Enter', 'Installer ready.\nPress Enter to continue...', { command: 'bash', idle: 9 }, 'WAITING_INPUT', 'prompt "Press Enter" on the last line'],
    ['Press any key', 'Press any key to continue', { command: 'python3', idle: 2 }, 'WAITING_INPUT', 'prompt "Press any key" on the last line'],
    ['Continue? with no brackets', 'Found 3 files to delete.\nContinue?', { command: 'node', idle: 9 }, 'WAITING_INPUT', 'prompt "Continue?" on the last line'],
    // everyday tools' questions (real screens)
    ['rm -i', "user@host:~/tmp$ rm -i notes.txt\nrm: remove regular file 'notes.txt'? ", { command: 'rm', idle: 0 }, 'WAITING_INPUT', 'prompt "rm: remove regular file \'notes.txt\'?" on the last line'],
    ['rm -ri descending', "rm: descend into directory 'build'? ", { command: 'rm', idle: 30 }, 'WAITING_INPUT', 'prompt "rm: descend into directory \'build\'?" on the last line'],
    ['cp -i overwrite', "user@host:~$ cp -i a.txt b.txt\ncp: overwrite 'b.txt'? ", { command: 'cp', idle: 2 }, 'WAITING_INPUT', 'prompt "cp: overwrite \'b.txt\'?" on the last line'],
    ['mv -i read-only target', "mv: replace 'c.txt', overriding mode 0444 (r--r--r--)? ", { command: 'mv', idle: 2 }, 'WAITING_INPUT', 'prompt "mv: replace \'c.txt\', overriding mode 0444 (r--r--r--)?" on the last line'],
    ['a coreutils question in another wording, known by the foreground program', "rm: remove write-protected regular empty file 'x'? ", { command: 'rm', idle: 1 }, 'WAITING_INPUT', 'prompt "rm: remove write-protected regular empty file \'x\'?" on the last line'],
    ['npx install prompt', 'Need to install the following packages:\ncreate-vite@5.5.2\nOk to proceed? (y) ', { command: 'npm exec create-vite', idle: 4 }, 'WAITING_INPUT', 'prompt "? (y)" on the last line'],
    ['pip uninstall', 'Found existing installation: requests 2.31.0\nUninstalling requests-2.31.0:\n  Would remove:\n    /usr/lib/python3/dist-packages/requests/*\nProceed (Y/n)? ', { command: 'pip', idle: 6 }, 'WAITING_INPUT', 'prompt "(Y/n)" on the last line'],
    ['dnf [y/d/N]', 'Total download size: 1.2 M\nInstalled size: 4.0 M\nIs this ok [y/d/N]: ', { command: 'dnf', idle: 6 }, 'WAITING_INPUT', 'prompt "[y/d/N]" on the last line'],
    ['git add -p', '@@ -1,3 +1,4 @@\n+import os\n import sys\n(1/2) Stage this hunk [y,n,q,a,d,j,J,g,/,e,?]? ', { command: 'git', idle: 9 }, 'WAITING_INPUT', 'prompt "[y,n,q,a,d,j,J,g,/,e,?]?" on the last line'],
    ['git credential username', "user@host:~/p$ git push\nUsername for 'https://github.com': ", { command: 'git', idle: 9 }, 'WAITING_INPUT', 'prompt "Username for \'https://github.com\':" on the last line'],
    ['git credential password', "Password for 'https://alice@github.com': ", { command: 'git', idle: 9 }, 'WAITING_HUMAN', 'secret prompt "Password for \'https://alice@github.com\':" on the last line: a person answers it (terminal_request_human)'],
    ['ssh password', "alice@10.0.0.2's password: ", { command: 'ssh', idle: 9 }, 'WAITING_HUMAN', 'secret prompt "password:" on the last line: a person answers it (terminal_request_human)'],
    ['PAM one-time code', 'Verification code: ', { command: 'sudo', idle: 2 }, 'WAITING_HUMAN', 'secret prompt "Verification code:" on the last line: a person answers it (terminal_request_human)'],
    ['Duo passcode', 'Passcode or option (1-3): ', { command: 'ssh', idle: 2 }, 'WAITING_HUMAN', 'secret prompt "Passcode or option (1-3):" on the last line: a person answers it (terminal_request_human)'],
    // A shell's own read -s (a script, or one an agent typed) is not a person's prompt (issue 45).
    ['read -s under a script', 'deploy: unlocking the vault\nVault password: ', { command: 'bash', idle: 1 }, 'WAITING_INPUT', 'prompt "password:" on the last line read by the shell itself (bash), not by a credential program'],
    ['staged sudo prompt in a shell', '[sudo] password for root: ', { command: 'bash', idle: 1 }, 'WAITING_INPUT', 'prompt "password for root:" on the last line read by the shell itself (bash), not by a credential program'],
    ['ssh-keygen file', 'Generating public/private ed25519 key pair.\nEnter file in which to save the key (/home/u/.ssh/id_ed25519): ', { command: 'ssh-keygen', idle: 9 }, 'WAITING_INPUT', 'prompt "Enter file in which to save the key (/home/u/.ssh/id_ed2551…" on the last line'],
    ['terraform apply', 'Do you want to perform these actions?\n  Terraform will perform the actions described above.\n  Only \'yes\' will be accepted to approve.\n\n  Enter a value: ', { command: 'terraform', idle: 9 }, 'WAITING_INPUT', 'prompt "Enter a value:" on the last line'],
    ['unzip replace', 'Archive:  site.zip\nreplace index.html? [y]es, [n]o, [A]ll, [N]one, [r]ename: ', { command: 'unzip', idle: 9 }, 'WAITING_INPUT', 'prompt "[y]es, [n]o" on the last line'],
    ['installer Press [Enter]', 'Welcome to the Foo installer.\nPress [Enter] to continue or Ctrl-C to abort', { command: 'sh', idle: 9 }, 'WAITING_INPUT', 'prompt "Press [Enter" on the last line'],
    ['inquirer picker', '? Select a framework: (Use arrow keys)', { command: 'node', idle: 9 }, 'WAITING_INPUT', 'prompt "(Use arrow keys)" on the last line'],
    ['an answered rm question under a shell prompt', "rm: remove regular file 'notes.txt'? y\nuser@host:~/tmp$ ", { command: 'bash', idle: 9 }, 'IDLE', 'bash prompt at the bottom'],
    ['a question from a program that is not asking', 'Why did the build fail?', { command: 'make', idle: 30 }, 'UNKNOWN', 'make in the foreground, no output for 30s'],
    ['a prompt just printed counts at once: the screen is the evidence, not the quiet time', 'Overwrite? [y/N] ', { command: 'python3', idle: 0 }, 'WAITING_INPUT', 'prompt "[y/N]" on the last line'],
    ['an unanswered [y/N] with a hint line under it', 'Overwrite config.yaml? [y/N]\n(default: no)', { command: 'python3', idle: 30 }, 'WAITING_INPUT', 'prompt "[y/N]" 2 lines from the bottom'],
    ['an answered [y/N] while apt keeps working', 'Do you want to continue? [Y/n] y\nGet:1 http://deb.debian.org/debian bookworm/main amd64 curl', { command: 'apt', idle: 0 }, 'RUNNING', 'apt produced output 0s ago'],
    ['an answered prompt under a shell prompt', 'Continue? [y/N] n\nAborted.\nuser@host:~$ ', { command: 'bash', idle: 50 }, 'IDLE', 'bash prompt at the bottom'],
    ['prose mentioning password and permission mid-output', MAKE_PROSE, { command: 'make', idle: 1 }, 'RUNNING', 'make produced output 1s ago'],
    ['password: mid-line in an error is not a prompt', 'Error: invalid password: too short\nRetrying in 30s', { command: 'node', idle: 20 }, 'UNKNOWN', 'node in the foreground, no output for 20s'],
    ['permission in prose above a shell prompt', 'You need permission to read the password store.\nuser@host:~$ ', { command: 'bash', idle: 100 }, 'IDLE', 'bash prompt at the bottom'],
    ['a numbered "menu" in a pager has no cursor', MENU_IN_PAGER, { command: 'less', idle: 100 }, 'UNKNOWN', 'less in the foreground, no output for 100s'],

    // c. shell and REPL prompts
    ['bash prompt', 'user@host:~/proj$ ', { command: 'bash', idle: 100 }, 'IDLE', 'bash prompt at the bottom'],
    ['login bash (-bash)', 'user@host:~$', { command: '-bash', idle: 100 }, 'IDLE', 'bash prompt at the bottom'],
    ['root prompt', 'root@host:/etc# ', { command: 'bash', idle: 100 }, 'IDLE', 'bash prompt at the bottom'],
    ['zsh % prompt', 'host% ', { command: 'zsh', idle: 100 }, 'IDLE', 'zsh prompt at the bottom'],
    ['fish > prompt', 'user@host ~/p> ', { command: 'fish', idle: 100 }, 'IDLE', 'fish prompt at the bottom'],
    ['two-line starship ❯ prompt', '~/proj on  main [!]\n❯ ', { command: 'zsh', idle: 100 }, 'IDLE', 'zsh prompt at the bottom'],
    ['bash continuation prompt', "user@host:~$ echo 'unterminated\n> ", { command: 'bash', idle: 100 }, 'IDLE', 'bash prompt at the bottom'],
    ['a prompt with trailing padding rows', 'user@host:~$ ls\na.txt  b.txt\nuser@host:~$ \n\n\n\n', { command: 'bash', idle: 5 }, 'IDLE', 'bash prompt at the bottom'],
    ['a python traceback then a $ prompt', TRACEBACK_THEN_PROMPT, { command: 'bash', idle: 4 }, 'IDLE', 'bash prompt at the bottom'],
    ['a half-typed command is not a prompt', 'user@host:~$ git sta', { command: 'bash', idle: 2 }, 'UNKNOWN', 'bash in the foreground, no prompt recognised at the bottom'],
    ['python REPL', 'Python 3.11.2 (main) [GCC 12.2.0] on linux\n>>> ', { command: 'python3', idle: 60 }, 'IDLE', 'python3 REPL prompt ">>>" at the bottom'],
    ['python continuation', '>>> def f():\n... ', { command: 'python3.11', idle: 60 }, 'IDLE', 'python3.11 REPL prompt "..." at the bottom'],
    ['ipython', 'In [2]: x = 1\n\nIn [3]: ', { command: 'python3', idle: 60 }, 'IDLE', 'ipython REPL prompt "In [3]:" at the bottom'],
    ['irb', 'irb(main):001:0> ', { command: 'ruby', idle: 60 }, 'IDLE', 'irb REPL prompt "irb(main):001:0>" at the bottom'],
    ['node REPL', 'Welcome to Node.js v20.19.0.\n> ', { command: 'node', idle: 60 }, 'IDLE', 'node REPL prompt ">" at the bottom'],
    ['python busy inside the REPL', '>>> import time; time.sleep(100)', { command: 'python3', idle: 50 }, 'UNKNOWN', 'python3 in the foreground, no output for 50s'],
    ['"..." from another program is not a python prompt', 'Loading...\n...', { command: 'node', idle: 50 }, 'UNKNOWN', 'node in the foreground, no output for 50s'],

    // d. activity
    ['sleep running long with no output', 'user@host:~$ sleep 600', { command: 'sleep', idle: 120 }, 'UNKNOWN', 'sleep in the foreground, no output for 120s'],
    ['a build writing output', 'user@host:~$ npm run build\n> tsc -b\nsrc/a.ts compiled', { command: 'npm', idle: 1.7 }, 'RUNNING', 'npm produced output 1s ago'],
    ['vim sitting still', VIM, { command: 'vim', idle: 40 }, 'UNKNOWN', 'vim in the foreground, no output for 40s'],
    ['htop refreshing', HTOP, { command: 'htop', idle: 0 }, 'RUNNING', 'htop produced output 0s ago'],
    ['output just over the threshold', 'working', { command: 'rsync', idle: 4 }, 'UNKNOWN', 'rsync in the foreground, no output for 4s'],
    ['empty pane with a shell', '', { command: 'bash', idle: 100 }, 'UNKNOWN', 'pane is empty, bash in the foreground'],
    ['empty pane, command unknown', '', { command: '', idle: 100 }, 'UNKNOWN', 'foreground command unknown and no prompt recognised'],
    ['unknown output age', 'compiling', { command: 'cargo', idle: Number.NaN }, 'UNKNOWN', 'cargo in the foreground, output age unknown'],

    // copy mode
    ['copy mode over a shell prompt', 'user@host:~$ ', { command: 'bash', idle: 100, copy: true }, 'UNKNOWN', 'pane in copy mode, screen may be scrolled; it shows bash prompt at the bottom'],
    ['copy mode over a permission menu', CLAUDE_PERMISSION_BOXED, { command: 'claude', idle: 60, copy: true }, 'UNKNOWN', 'pane in copy mode, screen may be scrolled; it shows claude code approval menu "Do you want to proceed?"'],
    ['copy mode while the agent writes', CLAUDE_BUSY_BOXED, { command: 'claude', idle: 0, copy: true }, 'RUNNING', 'pane in copy mode; claude produced output 0s ago'],
    ['copy mode with nothing recognisable', 'some log line', { command: 'tail', idle: 100, copy: true }, 'UNKNOWN', 'pane in copy mode, screen may be scrolled'],
  ])('%s', (_name, screen, facts, status, reason) => {
    const decision = classifyPaneStatus({
      lines: pane(screen),
      currentCommand: facts.command,
      inCopyMode: facts.copy ?? false,
      idleSeconds: facts.idle ?? 0,
    });
    expect(decision).toEqual({ status, reason });
    expect(decision.reason).not.toMatch(/\n/);
  });

  it('looks only at the bottom: a busy footer scrolled far up does not count', () => {
    const lines = ['✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)', ...Array.from({ length: 30 }, (_, i) => `log line ${i}`)];
    expect(classifyPaneStatus({ lines, currentCommand: 'claude', inCopyMode: false, idleSeconds: 30 })).toEqual({
      status: 'UNKNOWN',
      reason: 'claude in the foreground, no output for 30s',
    });
  });

  it('keeps the reason short when the evidence line is long', () => {
    const long = `✻ Thinking… (12s · ${'x'.repeat(500)}) `;
    const { reason } = classifyPaneStatus({ lines: [`✳ Working… (3s · ${'y'.repeat(500)}`, long], currentCommand: 'claude', inCopyMode: false, idleSeconds: 0 });
    expect(reason.length).toBeLessThan(120);
  });
});

describe('classifyPaneStatus with a usage limit on the screen', () => {
  const now = Date.parse('2026-07-10T12:00:00Z');
  const screen = ["⏺ You've hit your session limit · resets 4:20pm (Asia/Tbilisi)", '/upgrade to increase your usage limit.', '', '─────────', '❯ ', '─────────', '  ? for shortcuts'];

  it('is WAITING_INPUT with the reset instant, not the idle input box under it', () => {
    const d = classifyPaneStatus({ lines: screen, currentCommand: 'claude', inCopyMode: false, idleSeconds: 40, limitContext: { now, hostZone: 'UTC' } });
    expect(d.status).toBe('WAITING_INPUT');
    expect(d.reason).toBe('usage limit: claude code session limit, resets 2026-07-10T12:20:00.000Z (Asia/Tbilisi, from the message)');
    expect(d.limit?.resetsAt).toBe(Date.parse('2026-07-10T12:20:00Z'));
  });

  it('is the ordinary status under a shell, in copy mode, or without a clock', () => {
    expect(classifyPaneStatus({ lines: [...screen.slice(0, 2), '$'], currentCommand: 'bash', inCopyMode: false, idleSeconds: 40, limitContext: { now, hostZone: 'UTC' } }).limit).toBeUndefined();
    expect(classifyPaneStatus({ lines: screen, currentCommand: 'claude', inCopyMode: true, idleSeconds: 40, limitContext: { now, hostZone: 'UTC' } }).status).toBe('UNKNOWN');
    expect(classifyPaneStatus({ lines: screen, currentCommand: 'claude', inCopyMode: false, idleSeconds: 40 })).toMatchObject({ status: 'IDLE' });
  });
});
