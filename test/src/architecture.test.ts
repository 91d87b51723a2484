// Guards the privilege boundary: only broker effects spawn, open SQLite or touch files; clients import broker types only; contract imports zod only; http-guard imports Node built-ins only — re-derived from source and checked against ESLint.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/repo.js';

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

function walk(dir: string, out: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|js|mjs|svelte)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(full);
  }
  return out;
}

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
  const dynamic = /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
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
      (i) => !(i.specifier === 'zod' || i.specifier.startsWith('zod/') || i.specifier.startsWith('./')),
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
