// Guards the privilege boundary (only broker effects spawn, open SQLite or touch files; clients import broker types only; contract imports zod only; http-guard imports Node built-ins only) and the broker's layers (bin -> rpc -> use cases -> access -> policy/effects, no folder cycles) — re-derived from source and checked against ESLint.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/repo.js';
import { walkSource } from './helpers/walk-source.js';

const SOURCE_ROOTS = [
  'services/broker/src',
  'services/gateway/src',
  'services/observer/src',
  'web/src',
  'shared/contract/src',
  'shared/broker-client/src',
  'shared/http-guard/src',
  'shared/mcp-kit/src',
  'shared/oauth-http/src',
];

const walk = walkSource;

interface ImportFact {
  file: string;
  specifier: string;
  typeOnly: boolean;
}

function importsOf(file: string): ImportFact[] {
  const text = readFileSync(file, 'utf8');
  const rel = relative(REPO_ROOT, file);
  const facts: ImportFact[] = [];
  const staticImport = /^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*from\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(staticImport)) facts.push({ file: rel, specifier: m[4]!, typeOnly: Boolean(m[2]) });
  const bare = /^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(bare)) facts.push({ file: rel, specifier: m[1]!, typeOnly: false });
  const dynamic = /\b(?:import|require|require\.resolve)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(dynamic)) facts.push({ file: rel, specifier: m[1]!, typeOnly: false });
  return facts;
}

const ALL_IMPORTS = SOURCE_ROOTS.flatMap((root) => walk(join(REPO_ROOT, root))).flatMap(importsOf);
const SPAWN_OR_SQLITE = /^(node:)?child_process$|^better-sqlite3$|^execa$/;
const FILES = /^(node:)?fs(\/promises)?$/;
const inEffects = (f: string) => f.startsWith('services/broker/src/effects/');

describe('privilege boundary (re-derived from source)', () => {
  it('finds the source it is meant to check', () => {
    expect(ALL_IMPORTS.length).toBeGreaterThan(20);
    expect(ALL_IMPORTS.some((i) => inEffects(i.file) && SPAWN_OR_SQLITE.test(i.specifier))).toBe(true);
  });

  it('only services/broker/src/effects spawns processes or opens SQLite', () => {
    expect(ALL_IMPORTS.filter((i) => SPAWN_OR_SQLITE.test(i.specifier) && !inEffects(i.file))).toEqual([]);
  });

  it('only effects touch files inside the broker', () => {
    expect(ALL_IMPORTS.filter((i) => i.file.startsWith('services/broker/') && FILES.test(i.specifier) && !inEffects(i.file))).toEqual([]);
  });

  it('clients import broker types only', () => {
    const clientImports = ALL_IMPORTS.filter((i) => !i.file.startsWith('services/broker/'));
    expect(clientImports.filter((i) => i.specifier.startsWith('@terminal-mcp/broker') && i.specifier !== '@terminal-mcp/broker-client' && !i.typeOnly)).toEqual([]);
  });

  it('shared/contract imports zod only', () => {
    const bad = ALL_IMPORTS.filter((i) => i.file.startsWith('shared/contract/')).filter(
      // Its own files (operations/ reads the schemas one folder up) and zod, nothing else.
      (i) => !(i.specifier === 'zod' || i.specifier.startsWith('zod/') || (i.specifier.startsWith('.') && join(dirname(i.file), i.specifier).startsWith('shared/contract/src/'))),
    );
    expect(bad).toEqual([]);
  });

  it('shared/http-guard imports Node built-ins only', () => {
    const guard = ALL_IMPORTS.filter((i) => i.file.startsWith('shared/http-guard/'));
    expect(guard.length).toBeGreaterThan(0);
    expect(guard.filter((i) => !(i.specifier.startsWith('node:') || i.specifier.startsWith('./')))).toEqual([]);
  });
});

describe('privilege boundary (ESLint enforces the same rules)', () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const lint = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').length;
  };

  it.each([
    ['services/gateway/src/probe.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n"],
    ['services/broker/src/rpc/probe.ts', "import Database from 'better-sqlite3';\nexport const x = Database;\n"],
    ['services/broker/src/reads/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
    ['services/gateway/src/probe.ts', "import { startBroker } from '@terminal-mcp/broker';\nexport const x = startBroker;\n"],
    ['shared/contract/src/probe.ts', "import { join } from 'node:path';\nexport const x = join;\n"],
    ['shared/http-guard/src/probe.ts', "import { execFile } from 'node:child_process';\nexport const x = execFile;\n"],
    ['shared/http-guard/src/probe.ts', "import { z } from 'zod';\nexport const x = z;\n"],
    ['shared/mcp-kit/src/probe.ts', "import { startBroker } from '@terminal-mcp/broker';\nexport const x = startBroker;\n"],
  ])('refuses a forbidden import in %s', async (path, code) => {
    expect(await lint(path, code)).toBeGreaterThan(0);
  });

  it.each([
    ['services/broker/src/effects/probe.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n"],
    ['services/gateway/src/probe.ts', "import type { GatewayRouter } from '@terminal-mcp/broker/router-types';\nexport type X = GatewayRouter;\n"],
    ['shared/mcp-kit/src/probe.ts', "import type { ObserverRouter } from '@terminal-mcp/broker/router-types';\nexport type X = ObserverRouter;\n"],
  ])('allows the permitted import in %s', async (path, code) => {
    expect(await lint(path, code)).toBe(0);
  });
});

// The broker's layers, by top-level folder of services/broker/src ("(root)" for the
// composition files beside them). Each folder lists the folders it may import (relative
// imports, type imports included); anything else points up or sideways across layers.
// The capability table (capabilities.ts) is a node of its own at the bottom: it is data
// that each capability's factory reads as a type (`StoresOf<'notes'>`), so every folder
// may import it, types only, and it imports nothing but the store types.
const BROKER_SRC = 'services/broker/src';
const USE_CASES = ['attention', 'audit', 'grants', 'input', 'lifecycle', 'live', 'nodes', 'notes', 'oauth', 'projects', 'reads', 'registry', 'sources', 'supervisor', 'transcripts', 'webauth'];
const BELOW_USE_CASES = ['access', 'config', 'policy', 'effects'];
const CAPABILITY_TABLE = '(capability table)';
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  [CAPABILITY_TABLE]: ['effects'],
  policy: [],
  config: ['policy'],
  effects: ['config', 'policy'],
  access: ['config', 'policy', 'effects'],
  ...Object.fromEntries(USE_CASES.map((f) => [f, [...USE_CASES, ...BELOW_USE_CASES]])),
  rpc: [...USE_CASES, ...BELOW_USE_CASES],
  '(root)': ['rpc', ...USE_CASES, ...BELOW_USE_CASES],
  bin: ['(root)', 'rpc', ...USE_CASES, ...BELOW_USE_CASES],
};

const brokerFolder = (repoPath: string) => {
  const parts = relative(BROKER_SRC, repoPath).split('/');
  if (parts.length === 1 && /^capabilities\.(ts|js)$/.test(parts[0]!)) return CAPABILITY_TABLE;
  return parts.length === 1 ? '(root)' : parts[0]!;
};

/** Folder-level edges of the broker's relative imports (tests and testkits excluded). */
function brokerFolderEdges(): { from: string; to: string; file: string; specifier: string }[] {
  const edges: { from: string; to: string; file: string; specifier: string }[] = [];
  for (const i of ALL_IMPORTS) {
    if (!i.file.startsWith(`${BROKER_SRC}/`) || i.file.endsWith('.testkit.ts') || !i.specifier.startsWith('.')) continue;
    const target = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(i.file), i.specifier));
    if (!target.startsWith(`${BROKER_SRC}/`)) continue;
    const from = brokerFolder(i.file);
    const to = brokerFolder(target);
    // A type import of the table is the one edge every folder may have; a run-time one
    // is an ordinary edge and must obey MAY_IMPORT (the table is nobody's dependency).
    if (to === CAPABILITY_TABLE && i.typeOnly) continue;
    if (from !== to) edges.push({ from, to, file: i.file, specifier: i.specifier });
  }
  return edges;
}

/** Strongly connected components of more than one folder (Tarjan). */
function folderCycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) next.set(e.from, (next.get(e.from) ?? new Set()).add(e.to));
  const nodes = new Set(edges.flatMap((e) => [e.from, e.to]));
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sccs: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) sccs.push(scc.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return sccs;
}

describe('broker layers (re-derived from source)', () => {
  const edges = brokerFolderEdges();

  it('finds the folders it is meant to check', () => {
    const folders = new Set(edges.flatMap((e) => [e.from, e.to]));
    for (const f of ['bin', '(root)', 'rpc', 'input', 'reads', 'access', 'policy', 'effects', 'config']) expect(folders).toContain(f);
  });

  it('every import points down: bin -> rpc -> use cases -> access -> policy and effects', () => {
    const unknown = [...new Set(edges.map((e) => e.from))].filter((f) => MAY_IMPORT[f] === undefined);
    expect(unknown).toEqual([]);
    expect(edges.filter((e) => !MAY_IMPORT[e.from]!.includes(e.to)).map((e) => `${e.file} -> ${e.specifier}`)).toEqual([]);
  });

  it('policy imports only policy and @terminal-mcp/contract', () => {
    const policy = ALL_IMPORTS.filter((i) => i.file.startsWith(`${BROKER_SRC}/policy/`));
    expect(policy.length).toBeGreaterThan(0);
    expect(policy.filter((i) => !(i.specifier.startsWith('./') || i.specifier === '@terminal-mcp/contract'))).toEqual([]);
  });

  it('imports the capability table only as types (it is data, nobody\'s run-time dependency)', () => {
    const table = ALL_IMPORTS.filter((i) => i.file.startsWith(`${BROKER_SRC}/`) && !i.file.endsWith('.testkit.ts') && /(^|\/)capabilities\.js$/.test(i.specifier) && brokerFolder(i.file) !== CAPABILITY_TABLE);
    expect(table.length).toBeGreaterThan(0);
    expect(table.filter((i) => !i.typeOnly && !i.file.endsWith('.test.ts')).map((i) => i.file)).toEqual([]);
  });

  it('has no import cycles between broker folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('the cycle finder finds a planted cycle', () => {
    expect(folderCycles([...edges, { from: 'policy', to: 'rpc' }]).length).toBeGreaterThan(0);
  });
});

describe('broker package edges', () => {
  it('declares every package the broker loads at run time (require.resolve included)', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'services/broker/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    const loaded = ALL_IMPORTS.filter((i) => i.file.startsWith(`${BROKER_SRC}/`) && !i.typeOnly && !i.file.endsWith('.testkit.ts'))
      .map((i) => i.specifier)
      .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'));
    expect(loaded).toContain('@terminal-mcp/gateway/stdio');
    expect([...new Set(loaded.map(packageOf))].filter((p) => manifest.dependencies[p] === undefined)).toEqual([]);
  });
});

describe('broker layers (ESLint enforces the same rules)', () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const lint = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').length;
  };

  it.each([
    ['services/broker/src/policy/probe.ts', "import type { TmuxAdapter } from '../effects/tmux/types.js';\nexport type X = TmuxAdapter;\n"],
    ['services/broker/src/policy/probe.ts', "import type { BrokerConfig } from '../config/schema.js';\nexport type X = BrokerConfig;\n"],
    ['services/broker/src/policy/probe.ts', "import pino from 'pino';\nexport const x = pino;\n"],
    ['services/broker/src/config/probe.ts', "import { createAccessGate } from '../access/gate.js';\nexport const x = createAccessGate;\n"],
    ['services/broker/src/effects/tmux/probe.ts', "import type { AccessGate } from '../../access/gate.js';\nexport type X = AccessGate;\n"],
    ['services/broker/src/effects/store/probe.ts', "import { bindSession } from '../../input/bindings.js';\nexport const x = bindSession;\n"],
    ['services/broker/src/effects/probe.ts', "import { startBroker } from '../start-broker.js';\nexport const x = startBroker;\n"],
    ['services/broker/src/access/probe.ts', "import { runInputAttempt } from '../input/attempt.js';\nexport const x = runInputAttempt;\n"],
    ['services/broker/src/input/probe.ts', "import type { BrokerContext } from '../rpc/context.js';\nexport type X = BrokerContext;\n"],
    ['services/broker/src/reads/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
    ['services/broker/src/rpc/procedures/probe.ts', "import { x } from '../../bin/main.js';\nexport const y = x;\n"],
  ])('refuses an upward import in %s', async (path, code) => {
    expect(await lint(path, code)).toBeGreaterThan(0);
  });

  it.each([
    ['services/broker/src/policy/probe.ts', "import { isSensitiveName } from './access.js';\nimport { AppError } from '@terminal-mcp/contract';\nexport const x = [isSensitiveName, AppError];\n"],
    ['services/broker/src/effects/tmux/probe.ts', "import type { SessionIdentity } from '../../policy/identity.js';\nimport { openStore } from '../store/database.js';\nexport type X = SessionIdentity;\nexport const y = openStore;\n"],
    ['services/broker/src/access/probe.ts', "import type { BindingRecord } from '../effects/store/bindings-store.js';\nexport type X = BindingRecord;\n"],
    ['services/broker/src/input/probe.ts', "import { createAccessGate } from '../access/gate.js';\nimport { auditedRead } from '../audit/record-read.js';\nexport const x = [createAccessGate, auditedRead];\n"],
    ['services/broker/src/rpc/procedures/probe.ts', "import { runInputAttempt } from '../../input/attempt.js';\nexport const x = runInputAttempt;\n"],
  ])('allows a downward import in %s', async (path, code) => {
    expect(await lint(path, code)).toBe(0);
  });
});

// THE reader (docs/architecture.md section 3): the broker files that read pane content or
// a pane's identity from tmux, derived from the source — any mention, outside comments,
// of the tmux read calls or of the pane-text readers built on them. effects/ implements
// them and is not counted. A new file here is a side entrance: route it through
// SessionReader instead of adding it to this list and to eslint.config.js's reader zone.
const PANE_READ_WORDS = /\b(capturePane|capturePaneWithFacts|paneFacts|listPanes|paneHint|readIdentity|readPaneIdentity|readPaneWindow|readPaneLines|startEarlyCapture)\b/;
const PANE_READERS = [
  // the reader module, with the reads input delivery makes of the pane it types into
  // (identity under the lock, the text at the cursor, terminal_run's output)
  'services/broker/src/reads/pane-text.ts',
  'services/broker/src/reads/session-reader.ts',
  'services/broker/src/reads/delivery-reads.ts',
  // the gate it asks: a session's named pane, a binding's pinned pane, resolved by id
  'services/broker/src/access/gate.ts',
  'services/broker/src/access/target.ts',
];
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const BROKER_FILES = walk(join(REPO_ROOT, BROKER_SRC))
  .map((f) => relative(REPO_ROOT, f))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.testkit.ts'));

describe('the one reader (re-derived from source)', () => {
  it('only the reader (with its delivery reads) and the gate it asks read pane content or identity', () => {
    const readers = BROKER_FILES.filter((f) => !inEffects(f) && PANE_READ_WORDS.test(withoutComments(readFileSync(join(REPO_ROOT, f), 'utf8'))));
    expect(readers.sort()).toEqual([...PANE_READERS].sort());
  });

  it('ESLint holds every other broker file to the reader zone, and exempts exactly these', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const exempt: string[] = [];
    for (const f of BROKER_FILES.filter((x) => !inEffects(x))) {
      const config = (await eslint.calculateConfigForFile(join(REPO_ROOT, f))) as { rules?: Record<string, unknown> };
      const rule = config.rules?.['no-restricted-syntax'];
      const on = Array.isArray(rule) ? rule[0] !== 0 && rule[0] !== 'off' : rule !== undefined && rule !== 0 && rule !== 'off';
      if (!on) exempt.push(f);
    }
    expect(exempt.sort()).toEqual([...PANE_READERS].sort());
  });

  it.each([
    ["import type { TmuxAdapter } from '../effects/tmux/types.js';\nexport const x = (t: TmuxAdapter) => t.capturePane('%1');\n"],
    ["import type { TmuxAdapter } from '../effects/tmux/types.js';\nexport const x = ({ paneFacts }: TmuxAdapter) => paneFacts('%1');\n"],
    ["import type { PaneDelivery } from '../effects/tmux/deliver.js';\nexport type X = Pick<PaneDelivery, 'readIdentity'>;\n"],
    ["import { readPaneLines } from '../reads/pane-text.js';\nexport const x = readPaneLines;\n"],
  ])('ESLint refuses a side entrance in a use case: %s', async (code) => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, 'services/broker/src/supervisor/probe.ts') });
    expect(result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').length).toBeGreaterThan(0);
  });
});
