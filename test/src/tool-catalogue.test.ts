// Guards docs/tools.md against the code: every tool the gateway and the observer register has a section, every tool section names a registered tool, and each server's annotations match what the page promises.
import { readFileSync } from 'node:fs';
import { GATEWAY_TOOLS } from '@terminal-mcp/gateway';
import { OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';

const doc = readFileSync(repoPath('docs/tools.md'), 'utf8');
const sectionsUnder = (title: string): string[] => {
  const start = doc.indexOf(`\n# ${title}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const next = doc.indexOf('\n# ', start + 3);
  const part = doc.slice(start, next === -1 ? undefined : next);
  return [...part.matchAll(/^## ([a-z_]+)$/gm)].map((m) => m[1]!);
};
const READ = sectionsUnder('Read tools (gateway and observer)');
const GATEWAY_ONLY = sectionsUnder('Gateway: wait, input, bindings, audit');
const OBSERVER_ONLY = sectionsUnder('Observer tools (read-only, for claude.ai)');

describe('docs/tools.md', () => {
  it('documents exactly the gateway tools', () => {
    expect(GATEWAY_TOOLS.map((t) => t.name).sort()).toEqual([...READ, ...GATEWAY_ONLY].sort());
  });

  it('documents exactly the observer tools, seventeen, all read-only', () => {
    expect(OBSERVER_TOOLS.map((t) => t.name).sort()).toEqual([...READ, ...OBSERVER_ONLY].sort());
    expect(OBSERVER_TOOLS).toHaveLength(17);
    for (const t of OBSERVER_TOOLS) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('states each gateway tool annotation as registered', () => {
    for (const t of GATEWAY_TOOLS) {
      const section = doc.slice(doc.indexOf(`\n## ${t.name}\n`) + 1).split(/\n## |\n# /)[0]!;
      const documented = /readOnlyHint: (true|false)/.exec(section)?.[1];
      if (documented !== undefined) expect(`${t.name}: ${String(t.annotations.readOnlyHint)}`).toBe(`${t.name}: ${documented}`);
      if (READ.includes(t.name)) expect(t.annotations.readOnlyHint).toBe(true);
    }
    expect(GATEWAY_TOOLS.find((t) => t.name === 'terminal_send_keys')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});
