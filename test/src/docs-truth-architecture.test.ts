// docs/architecture.md tells the truth about the code: the broker's "may" row and capability table are the generated ones, every source file it names exists, it names every module-state exception, and it no longer calls the broker small.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBrokerRow, renderCapabilityTable } from '../../scripts/gen-architecture.js';
import { REPO_ROOT } from './helpers/repo.js';
import { walkSource } from './helpers/walk-source.js';

const DOC = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
/** Where a path the document names may be rooted: the repo, the broker's source, its effects. */
const ROOTS = ['', 'services/broker/src/', 'services/broker/src/effects/', 'services/gateway/src/', 'shared/', 'web/src/'];

describe('docs/architecture.md', () => {
  it('has the generated broker row and capability table (npm run gen:architecture)', () => {
    expect(DOC.split('\n').filter((l) => l.startsWith('| broker |'))).toEqual([renderBrokerRow()]);
    expect(DOC).toContain(renderCapabilityTable());
  });

  it('names operator-configured commands among what the broker may do, no network egress, and the notifier as the process that sends notices', () => {
    const row = renderBrokerRow();
    expect(row).toMatch(/operator-configured commands/);
    expect(row).not.toMatch(/HTTP|webhook/);
    expect(DOC).toMatch(/^\| notifier \| `terminal-mcp-notifier` \| its own user \(`tmcp-notifier`, unit `terminal-mcp-notifier`\) \| connect to `notifier\.sock` only/m);
  });

  it('no longer calls the privileged process small', () => {
    expect(DOC).not.toMatch(/small\s+privileged/);
  });

  it('every source file it names exists', () => {
    const named = [...DOC.matchAll(/(?<![\w./-])((?:[\w.-]+\/)+[\w.-]+\.(?:ts|js|mjs))\b/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    const missing = [...new Set(named)].filter((p) => !ROOTS.some((root) => existsSync(join(REPO_ROOT, root, p))));
    expect(missing).toEqual([]);
  });

  it('names every file that holds a module-state exception', () => {
    const roots = [...['broker', 'gateway', 'observer'].map((s) => join('services', s, 'src')), ...['contract', 'broker-client', 'http-guard', 'oauth-http', 'mcp-kit'].map((s) => join('shared', s, 'src')), join('web', 'src', 'lib', 'server')];
    const holders = roots.flatMap((root) =>
      walkSource(join(REPO_ROOT, root)).filter((f) => readFileSync(f, 'utf8').includes('eslint-disable-next-line terminal-mcp/no-module-state')),
    );
    expect(holders.length).toBeGreaterThan(0);
    const short = (f: string) => relative(REPO_ROOT, f).replace(/^services\/broker\/src\//, '').replace(/^services\/gateway\/src\//, '');
    expect(holders.map(short).filter((f) => !DOC.includes(f))).toEqual([]);
  });
});
