// Guards the docs against the code: tool counts and names (README, the claude.ai guide, docs/tools.md's sections), the statuses terminal_status returns, the stores and state-directory entries, the bins and config.yaml's keys (docs/configuration.md), all derived from the code, so the next drift fails CI.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTACHMENTS_DIR, configSchema, STORE_NAMES, TRANSCRIPTS_DIR } from '@terminal-mcp/broker';
import { sessionStatusSchema, waitStateSchema } from '@terminal-mcp/contract';
import { GATEWAY_TOOLS } from '@terminal-mcp/gateway';
import { OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { repoPath, workspaceBins } from './helpers/repo.js';
import { cleanEnv, runNode } from './helpers/run-node.js';

const read = (path: string) => readFileSync(repoPath(path), 'utf8');
const README = read('README.md');
const TOOLS = read('docs/tools.md');
const CLAUDE = read('docs/claude-web-connector.md');
const CHATGPT_USAGE = read('docs/CHATGPT_USAGE.md');
const OPERATIONS = read('docs/operations.md');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
/** How the docs spell a small count ("eighteen"). */
const word = (n: number) => {
  const w = WORDS[n];
  if (w === undefined) throw new Error(`no word for ${n}: write the docs' count as a number and extend this test`);
  return w;
};
const count = (prefix: string) => OBSERVER_TOOLS.filter((t) => t.name.startsWith(prefix)).length;
/** Backticked names like `terminal_tail` in a piece of text. */
const toolNamesIn = (text: string) => [...text.matchAll(/`([a-z0-9]+_[a-z0-9_]+)`/g)].map((m) => m[1]!);
/** Upper-case words like `WAITING_INPUT` (backticked or not) in a piece of text. */
const statesIn = (text: string) => [...new Set([...text.matchAll(/\b[A-Z][A-Z_]{3,}\b/g)].map((m) => m[0]))];
const lineWith = (text: string, needle: string) => {
  const line = text.split('\n').find((l) => l.includes(needle));
  expect(line, `a line with ${needle}`).toBeDefined();
  return line!;
};

describe('the observer tool count and names', () => {
  const n = OBSERVER_TOOLS.length;

  it('README says how many read tools the observer serves, by family', () => {
    const families = `${word(n)} read tools (${word(count('terminal_'))} terminal, ${word(count('source_'))} project-source, and\n  ${OBSERVER_TOOLS.filter((t) => t.name.startsWith('note_')).map((t) => `\`${t.name}\``).join('/')})`;
    expect(README.toLowerCase()).toContain(families.toLowerCase());
    expect(count('terminal_') + count('source_') + count('note_')).toBe(n);
  });

  it('docs/claude-web-connector.md names the count and tabulates exactly the observer tools', () => {
    expect(CLAUDE).toContain(`## What the ${word(n)} tools do`);
    const section = CLAUDE.slice(CLAUDE.indexOf('## What the'));
    const rows = section.split('\n').filter((l) => /^\| `[a-z0-9_]+` \|/.test(l));
    expect(rows.map((r) => /^\| `([a-z0-9_]+)`/.exec(r)![1]).sort()).toEqual(OBSERVER_TOOLS.map((t) => t.name).sort());
  });

  it('docs/tools.md says how many tools the observer serves and how many terminal read tools', () => {
    const observer = TOOLS.slice(TOOLS.indexOf('\n# Observer tools'));
    expect(observer).toContain(`serves exactly ${word(n)} tools`);
    expect(observer).toContain(`the ${word(count('terminal_'))} terminal read tools`);
  });
});

describe('docs/tools.md sections', () => {
  /** The tool sections (## name) under each top-level section (# title), in order. */
  const sections = TOOLS.split(/\n# /)
    .slice(1)
    .map((part) => ({ title: part.split('\n')[0]!, tools: [...part.matchAll(/^## ([a-z0-9_]+)$/gm)].map((m) => m[1]!) }));
  /** A tool's family: what a reader looks for together. */
  const family = (name: string) => (/^(project_|deploy_)/.test(name) ? 'projects' : /^supervisor2?_/.test(name) ? 'supervisor' : name.slice(0, name.indexOf('_')));

  it('keeps each family of gateway tools together, in one section of its own', () => {
    const gatewaySections = sections.filter((s) => s.title.startsWith('Gateway:'));
    const owner = new Map<string, string>();
    for (const s of gatewaySections) {
      for (const t of s.tools) {
        const f = family(t);
        // terminal_* tools fill the first gateway section; every other family has its own.
        if (f === 'terminal') continue;
        expect(owner.get(f) ?? s.title, `${t} is in "${s.title}", but ${f} tools are in "${owner.get(f)}"`).toBe(s.title);
        owner.set(f, s.title);
      }
    }
    for (const s of gatewaySections) {
      const families = new Set(s.tools.map(family));
      expect(families.size, `"${s.title}" mixes ${[...families].join(', ')}`).toBe(1);
    }
  });

  it('documents every gateway tool once', () => {
    const all = sections.flatMap((s) => s.tools);
    expect(new Set(all).size).toBe(all.length);
    for (const t of GATEWAY_TOOLS) expect(all, t.name).toContain(t.name);
  });
});

describe('README tool list', () => {
  it('names every gateway tool', () => {
    const list = README.slice(README.indexOf('\nTools: '), README.indexOf('\n## ', README.indexOf('\nTools: ')));
    const named = new Set(toolNamesIn(list));
    expect(GATEWAY_TOOLS.map((t) => t.name).filter((name) => !named.has(name))).toEqual([]);
  });
});

describe('statuses', () => {
  const statuses = [...sessionStatusSchema.options].sort();

  it('every doc that lists what terminal_status returns lists exactly the contract statuses', () => {
    const places: [string, string][] = [
      ['docs/CHATGPT_USAGE.md (the loop, step 2)', CHATGPT_USAGE.slice(CHATGPT_USAGE.indexOf('2. `terminal_status`'), CHATGPT_USAGE.indexOf('\n3. '))],
      ['docs/claude-web-connector.md', lineWith(CLAUDE, '| `terminal_status` |')],
      ['docs/tools.md terminal_status', TOOLS.slice(TOOLS.indexOf('## terminal_status\n'), TOOLS.indexOf('\n## ', TOOLS.indexOf('## terminal_status\n') + 5))],
    ];
    for (const [where, text] of places) expect(statesIn(text).sort(), where).toEqual(statuses);
  });

  it('terminal_wait_for_state documents the states it waits for, and PENDING', () => {
    const row = lineWith(TOOLS, '| `states` |');
    expect(statesIn(row).sort()).toEqual(statuses);
    expect(waitStateSchema.options).toEqual([...sessionStatusSchema.options, 'PENDING']);
  });
});

describe('docs/operations.md: the state directory and the bins', () => {
  it('lists every store', () => {
    const row = lineWith(OPERATIONS, '| stores (SQLite, WAL) |');
    const listed = /\{([a-z,]+)\}\.db/.exec(row)?.[1]?.split(',') ?? [];
    expect([...listed].sort()).toEqual([...STORE_NAMES].sort());
  });

  it('names the note images and transcripts folders', () => {
    expect(OPERATIONS).toContain(`\`<state dir>/${ATTACHMENTS_DIR}/`);
    expect(OPERATIONS).toContain(`\`<state dir>/${TRANSCRIPTS_DIR}/`);
    // The backup section says it holds the images, and that transcripts are not in it.
    const backup = OPERATIONS.slice(OPERATIONS.indexOf('## Backup'), OPERATIONS.indexOf('## Restore'));
    expect(backup).toContain(`\`${ATTACHMENTS_DIR}/\``);
    expect(backup).toContain(`(\`${TRANSCRIPTS_DIR}/\`) and logs are not in the backup`);
  });

  it('names every bin as answering --help and --version (bin-flags.test.ts checks that they do)', () => {
    const sentence = OPERATIONS.slice(OPERATIONS.indexOf('Every bin ('), OPERATIONS.indexOf(') answers', OPERATIONS.indexOf('Every bin (')));
    expect(sentence.length).toBeGreaterThan(0);
    const named = [...sentence.matchAll(/`(terminal-mcp[a-z-]*)`/g)].map((m) => m[1]!);
    expect(named.sort()).toEqual(workspaceBins().map(([name]) => name).sort());
  });

  it('lists every terminal-mcp command its --help names', async () => {
    const help = await runNode([repoPath('services/broker/dist/effects/launch/terminal-mcp.js'), '--help'], cleanEnv());
    const commands = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]+)\b/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(5);
    const table = OPERATIONS.slice(OPERATIONS.indexOf('## Lifecycle commands'), OPERATIONS.indexOf('\nEvery bin ('));
    const documented = [...table.matchAll(/^\| `terminal-mcp ([a-z][a-z-]+)/gm)].map((m) => m[1]!);
    expect([...new Set(documented)].sort()).toEqual([...new Set(commands)].sort());
  });
});

describe('environment variables', () => {
  /** Source files of every package (not tests, not build output). */
  const sources = (dir: string): string[] =>
    readdirSync(repoPath(dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|mjs|js|svelte)$/.test(e.name) && !/\.test\.ts$|\.d\.ts$/.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .filter((p) => !p.includes('/dist/') && !p.includes('/node_modules/') && !p.includes('/build/'));

  it('documents every TERMINAL_MCP_* variable the code reads (in README or docs/)', () => {
    const files = ['services', 'shared', 'web/src', 'scripts'].flatMap(sources);
    const used = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bTERMINAL_MCP_[A-Z0-9_]+\b/g)].map((m) => m[0])));
    // adapter-node's private prefix, set by the web server itself (web/src/server/main.ts).
    for (const name of used) if (name.startsWith('TERMINAL_MCP_WEB_KIT_')) used.delete(name);
    expect(used.size).toBeGreaterThan(15);
    const docs = [README, ...readdirSync(repoPath('docs')).filter((f) => f.endsWith('.md')).map((f) => read(`docs/${f}`))].join('\n');
    expect([...used].filter((name) => !docs.includes(name)).sort()).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('shows every top-level key of config.yaml', () => {
    const CONFIGURATION = read('docs/configuration.md');
    const start = CONFIGURATION.indexOf('```yaml', CONFIGURATION.indexOf('## config.yaml'));
    const block = CONFIGURATION.slice(start, CONFIGURATION.indexOf('\n```', start + 7));
    const shown = new Set([...block.matchAll(/^([a-z_]+):/gm)].map((m) => m[1]!));
    const keys = Object.keys(configSchema.shape);
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => !shown.has(k)).sort()).toEqual([]);
  });
});
