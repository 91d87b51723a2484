// Guards the guarded-command check of typed commands on the real bash parse (issue 45: "the same parse feeds the guarded-command check for typed text"): spellings that ran ssh past the old word check are refused, spellings whose program the parse cannot name are refused as guarded, and a corpus of ordinary commands still runs (its over-blocking figure is printed and pinned), through terminal_run's decision, text sent with Enter at a shell prompt, and review mode `risky`.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GUARDED_COMMANDS, decideInput, type InputPolicy, type InputRequest, type InputTargetFacts } from '../../policy/input.js';
import type { PaneProcess } from '../../policy/foreground.js';
import { reviewReason } from '../../policy/review.js';
import type { ShellParse } from '../../policy/shell-review.js';
import { createBashParserLoader } from './bash-parser.js';

const POLICY: InputPolicy = {
  terminalInput: true,
  allowSendText: true,
  allowedPatterns: ['agent-*'],
  deniedPatterns: [],
  maxTextLength: 4000,
  guardedCommands: DEFAULT_GUARDED_COMMANDS,
  guardedCommandAllow: [{ session: 'agent-ops', commands: ['ssh'] }],
  allowedForegroundCommands: null,
  runAllowedShells: ['bash', 'zsh'],
};
const proc = (pid: number, ppid: number, comm: string, foreground: boolean): PaneProcess => ({ pid, ppid, foreground, exe: comm, comm, argv0: comm });
const at = (processes: PaneProcess[], foregroundGroup = 100): InputTargetFacts => ({
  sessionName: 'agent-1',
  readable: true,
  currentCommand: 'bash',
  inCopyMode: false,
  processes: { source: 'proc', panePid: 100, foregroundGroup, processes },
});
const BASH_AT_PROMPT = at([proc(100, 1, 'bash', true)]);

let parse: ShellParse;
beforeAll(async () => {
  parse = await createBashParserLoader()();
});

/** terminal_run's answer: the action, or the refusal's code. */
const run = (text: string, facts = BASH_AT_PROMPT): string => {
  const d = decideInput(POLICY, facts, { kind: 'command', text, shell: { parse } });
  return d.allowed ? d.action : d.code;
};

/** Each ran a guarded program (ssh, psql, kubectl...) past the word check of bc51955, which
 * split the text at shell punctuation and looked for a guarded word; the program's name is
 * built by the shell at run time, or hidden where no word shows it. */
const PASSED_THE_WORD_CHECK: readonly string[] = [
  '${a}h prod-host',
  'a=ss; ${a}h prod-host',
  '$(printf ss)h prod-host',
  '`printf ss`h prod-host',
  "$'\\x73sh' prod-host",
  "$'\\163\\163\\150' prod-host",
  '$CMD prod-host',
  '"$S" prod-host',
  'x=ss; eval "${x}h prod-host"',
  'eval "$(echo c3NoIHByb2QK | base64 -d)"',
  'echo c3NoIHByb2QK | base64 -d | sh',
  'printf "%sh prod" s | bash',
  'bash <<< "$(printf ss)h prod"',
  'sh -c "$(printf ss)h prod-host"',
  'env $(printf ss)h prod-host',
  'timeout 5 $(printf ss)h prod-host',
  'find . -maxdepth 0 -exec $(printf ss)h prod-host \\;',
  'cd /tmp && ${a}h prod-host',
  '{s,}sh prod-host',
  '/usr/bin/ss? prod-host',
  '/usr/bin/ss[h] prod-host',
  '=ssh prod-host',
  '!!',
  '!ss',
  '^echo^ssh',
  'fc -s echo=ssh',
  "PROMPT_COMMAND='s\"s\"h prod-host'",
  "bind -x '\"\\C-t\": x'",
  "bash -lc 'alias p=ssh; p prod-host'",
  "alias p='s''sh'",
];

/** Refused by the word check already, and by the parse: the forms the issue names. */
const REFUSED_BY_BOTH: readonly string[] = [
  'ssh prod-host',
  '\\ssh prod-host',
  "s''sh prod-host",
  '"ssh" prod-host',
  'command ssh prod-host',
  'builtin exec ssh prod-host',
  'env ssh prod-host',
  'env -u HOME FOO=1 ssh prod-host',
  'x=1 ssh prod-host',
  'time ssh prod-host',
  'exec -a x ssh prod-host',
  'nohup nice -n 5 ssh prod-host',
  'timeout -s KILL 5 ssh prod-host',
  'xargs -n 1 ssh < hosts',
  'cat hosts | xargs -I{} ssh {} uptime',
  "sh -c 'ssh prod-host'",
  "alias p='ssh prod-host'",
  'eval ssh prod-host',
  "eval 'ss''h prod-host'",
  "watch -n 5 'ssh prod-host uptime'",
  "flock /tmp/l -c 'ssh prod-host'",
  "trap 'ssh prod-host' EXIT",
  'find . -exec ssh {} \\;',
  'ls | ssh prod-host',
  'ls; ssh prod-host',
  'true && kubectl delete ns prod',
  'false || psql -h db',
  'f() { ssh prod-host; }',
  'echo $(ssh prod-host hostname)',
  'x=$(tmux ls)',
  'cat <(docker ps)',
  '/usr/bin/sudo -i',
  "python3 -c 'import os; os.system(\"ssh prod-host\")'",
  'setsid -f ssh -N -L 5432:db:5432 prod-host',
];

/** Ordinary commands an agent types: each must run. Those the old word check refused name
 * a guarded program only as an argument or inside text. */
const ORDINARY: readonly string[] = [
  'ls -la', 'pwd', 'cd src && ls', 'git status', 'git diff --stat', 'git log --oneline -10', 'git add -A && git commit -m "fix: handle ssh keys"',
  'git commit -m "done!"', 'git push origin feature', 'git checkout -b topic', 'git stash list', 'git grep -n sudo -- "*.md"',
  'npm test', 'npm run build', 'npm install', 'npx vitest run test/a.test.ts', 'node -e "console.log(process.version)"', 'node dist/server.js',
  'python3 -m pytest -q', 'python3 -c "print(1 + 1)"', 'pip install -r requirements.txt', 'source .venv/bin/activate', '. ./env.sh',
  'make -j4', 'make test 2>&1 | tail -20', 'cargo build --release', 'cargo test', 'go test ./...', 'go build -o bin/app .',
  'cat README.md', 'head -n 20 log.txt', 'tail -f app.log', 'less notes.txt', 'wc -l *.ts', 'sort names.txt | uniq -c | sort -rn | head',
  'grep -rn TODO src/', 'grep ssh /var/log/auth.log', 'ps aux | grep ssh', 'ps -ef | grep -v grep | grep docker', 'pgrep -a tmux',
  'man ssh', 'which ssh', 'type psql', 'command -v docker', 'whereis kubectl', 'apropos sudo', 'info tmux',
  'cat ~/.ssh/config', 'ls -la ~/.ssh', 'ssh-keygen -l -f ~/.ssh/id_ed25519.pub', 'chmod 600 ~/.ssh/config', 'systemctl status sshd',
  'journalctl -u ssh --since today', 'echo "run tmux ls later"', 'echo $HOME', 'echo "$PATH" | tr : "\\n"', 'export PATH="$HOME/bin:$PATH"',
  'cd "$PROJECT_DIR"', 'ls $(pwd)', 'echo "today is $(date +%F)"', 'for f in *.txt; do wc -l "$f"; done', 'for i in {1..3}; do echo $i; done',
  'if [ -f package.json ]; then cat package.json; fi', '[[ -d build ]] && rm -rf build', 'test -e x || touch x', 'while read -r l; do echo "$l"; done < list',
  'find . -name "*.log" -mtime +7', 'find . -name "*.pyc" -delete', 'find . -type f -exec wc -l {} +', 'find . -name "*.py" | xargs wc -l',
  'xargs -n1 echo < words', 'tar czf out.tgz dir/', 'tar xzf release.tar.gz -C /tmp', 'unzip -o data.zip', 'cp config.yml config.yml.bak', 'cp file{,.bak}',
  'mv old.txt new.txt', 'mkdir -p build/out', 'rm -f build/*.o', 'touch .env.example', 'ln -s ../shared shared', 'du -sh *', 'df -h',
  'curl -s https://example.com/health | jq .', 'wget -q -O- https://example.com', 'jq ".name" package.json', 'sed -n 1,20p file.ts', "awk '{print $1}' access.log",
  'diff -u a.txt b.txt', 'env | sort', 'env FOO=1 npm test', 'nohup ./server > server.log 2>&1 &', 'timeout 10 make test', 'time npm run build',
  'nice -n 10 make', 'watch -n 2 "ls -la"', 'date', 'uptime', 'whoami', 'id', 'hostname', 'uname -a', 'free -m', 'top -b -n 1 | head',
  'history | tail -20', 'clear', 'alias ll="ls -la"', 'bash build.sh', 'sh ./configure --prefix=/usr/local', 'bash -c "echo hi"',
  'tsc --noEmit', 'eslint src/', 'prettier --check .', 'docker-compose --version || true', 'ssh-add -l', 'code .', 'vim notes.md',
  'sqlite3 app.db ".tables"', 'redis-benchmark -q -n 100', 'openssl version', 'gpg --list-keys', 'kill %1', 'jobs', 'fg', 'echo done; exit 0',
  'cat <<EOF', "cat > notes.txt <<'EOF'", 'fc -l', 'fc -ln -10', 'fc -W',
  '"$EDITOR" notes.txt', '$PAGER app.log',
];

/** Ordinary commands the new check refuses by design: the program's name is computed
 * (an editor or pager named by a variable), which no reading of the text can judge. */
const OVERBLOCKED_BY_DESIGN: readonly string[] = ['"$EDITOR" notes.txt', '$PAGER app.log'];

describe('terminal_run: the guarded-command check reads the bash parse', () => {
  it.each(PASSED_THE_WORD_CHECK)('refuses %s', (text) => {
    expect(run(text)).toBe('COMMAND_GUARDED');
  });

  it.each(REFUSED_BY_BOTH)('still refuses %s', (text) => {
    expect(run(text)).toBe('COMMAND_GUARDED');
  });

  // A heredoc opened on the last line is judged as it runs once closed; fc is judged by
  // its options (listing and history-file forms run nothing).
  it.each(['fc', 'fc -e vi', 'fc -s', 'fc -l -e vi', 'bash <<EOF', 'ssh prod-host <<EOF', 'cat <<EOF; ssh prod-host', 'sh < deploy.txt'])('refuses %s', (text) => {
    expect(run(text)).toBe('COMMAND_GUARDED');
  });

  it('runs the ordinary corpus, refusing only commands whose name is computed (figure printed)', () => {
    const refused = ORDINARY.filter((t) => run(t) !== 'run_command');
    // The figure the issue asks for: how much ordinary work the check stops.
    console.log(`over-blocking: ${refused.length} of ${ORDINARY.length} ordinary commands refused: ${JSON.stringify(refused)}`);
    expect(refused).toEqual(OVERBLOCKED_BY_DESIGN);
  });

  it('says why an unjudged command counts as guarded, and names the program of a guarded one', () => {
    const unjudged = decideInput(POLICY, BASH_AT_PROMPT, { kind: 'command', text: '${a}h prod', shell: { parse } });
    expect(unjudged).toMatchObject({ allowed: false, code: 'COMMAND_GUARDED', message: expect.stringMatching(/computed when it runs.*counts as one/) });
    const guarded = decideInput(POLICY, BASH_AT_PROMPT, { kind: 'command', text: 'env ssh prod', shell: { parse } });
    expect(guarded).toMatchObject({ allowed: false, message: expect.stringContaining('runs "ssh", a guarded command') });
  });

  it('lets guarded_command_allow admit its program for its session only, however it is spelled', () => {
    const ops = { ...BASH_AT_PROMPT, sessionName: 'agent-ops' };
    expect(run('env ssh prod-host', ops)).toBe('run_command');
    expect(run("s''sh prod-host", ops)).toBe('run_command');
    expect(run('ssh prod-host; psql db', ops)).toBe('COMMAND_GUARDED');
    expect(run('${a}h prod-host', ops)).toBe('COMMAND_GUARDED');
  });

  it('refuses every command when the grammar could not be loaded, never passes it unjudged', () => {
    const d = decideInput(POLICY, BASH_AT_PROMPT, { kind: 'command', text: 'ls', shell: { parse: null } });
    expect(d).toMatchObject({ allowed: false, code: 'COMMAND_GUARDED', message: expect.stringContaining('could not be loaded') });
    expect(decideInput(POLICY, BASH_AT_PROMPT, { kind: 'command', text: 'ls' })).toMatchObject({ allowed: false, code: 'COMMAND_GUARDED' });
  });
});

describe('text sent with Enter into a shell at its prompt is a command line too', () => {
  const send = (text: string, facts: InputTargetFacts, submit: boolean, state: 'prompt' | 'running' | null = null): string => {
    const request: InputRequest = { kind: 'text', text, submit, shell: { parse, stateOf: () => state } };
    const d = decideInput(POLICY, facts, request);
    return d.allowed ? d.action : d.code;
  };
  const PYTHON = at([proc(100, 1, 'bash', false), proc(200, 100, 'python3', true)], 200);
  const BUSY = at([proc(100, 1, 'bash', true), proc(200, 100, 'sleep', true)]);

  it.each([...PASSED_THE_WORD_CHECK.slice(0, 8), 'ssh prod-host', 'env ssh prod-host', 'ls\nssh prod-host'])('refuses %s submitted at the prompt', (text) => {
    expect(send(text, BASH_AT_PROMPT, true)).toBe('COMMAND_GUARDED');
    expect(send(text, BASH_AT_PROMPT, true, 'prompt')).toBe('COMMAND_GUARDED');
  });

  it('judges only text a shell will run: not without Enter, not into a program or a busy shell, not into a read the integration saw start', () => {
    expect(send('ssh prod-host', BASH_AT_PROMPT, false)).toBe('paste_text');
    expect(send('ssh prod-host', PYTHON, true)).toBe('paste_text');
    expect(send("it's ${a}h", BASH_AT_PROMPT, true, 'running')).toBe('paste_text');
    // A shell running a command is not reading a command line: the text is input for what
    // runs (the no-type-ahead gate refuses it when the tree shows nothing reading).
    expect(send('ssh prod-host', BUSY, true)).toBe('paste_text');
  });

  // Whole heredocs as typed text with Enter (terminal_send_text into bash at its prompt).
  it.each(['bash <<EOF\nssh prod-host\nEOF', 'python3 - <<EOF\nimport os\nEOF'])('refuses the whole heredoc %s sent with Enter', (text) => {
    expect(send(text, BASH_AT_PROMPT, true)).toBe('COMMAND_GUARDED');
  });

  it.each(ORDINARY.filter((t) => !OVERBLOCKED_BY_DESIGN.includes(t)).slice(0, 40))('sends %s', (text) => {
    expect(send(text, BASH_AT_PROMPT, true)).toBe('paste_text');
  });
});

describe('review mode risky queues what the guarded check cannot judge', () => {
  const RULES = { review: 'risky' as const, review_always_session_patterns: [], guarded_commands: DEFAULT_GUARDED_COMMANDS };
  it.each(['!!', '!ss', '{s,}sh prod-host', '=ssh prod-host', "alias p='ssh prod-host'", "PROMPT_COMMAND='ssh prod-host'", '/usr/bin/ss? prod-host', 'fc -s'])(
    'queues %s',
    (text) => {
      expect(reviewReason(RULES, 'agent-1', { kind: 'text', text }, parse)).not.toBeNull();
    },
  );
});
