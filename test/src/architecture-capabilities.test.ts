// Every broker folder uses exactly the effects services/broker/src/capabilities.ts declares for it (derived from its imports of effects/ and its `stores.<name>` uses), every effects/ module belongs to one effect, and the lint zones and docs/architecture.md's table generated from the table are current; ESLint refuses an undeclared effect.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CAPABILITIES, EFFECTS, STORES, STORE_PLUMBING, type Effect, type StoresOf } from '../../services/broker/src/capabilities.js';
import { DOC_BEGIN, DOC_FILE, ZONES_FILE, renderCapabilityTable, renderZones } from '../../scripts/gen-architecture.js';
import { REPO_ROOT } from './helpers/repo.js';
import { walkSource } from './helpers/walk-source.js';

const BROKER_SRC = join(REPO_ROOT, 'services/broker/src');
const sourceOf = (dir: string) => walkSource(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.testkit.ts'));
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const EFFECT_IMPORT = /from\s+['"](?:\.\.\/)+effects\/([^'"]+?)(?:\.js)?['"]/g;

function effectOf(module: string): Effect | 'store' | 'plumbing' | undefined {
  if ((STORE_PLUMBING as readonly string[]).includes(module)) return 'plumbing';
  if (/^store\/[a-z]+-store$/.test(module)) return 'store';
  return (Object.keys(EFFECTS) as Effect[]).find((e) => EFFECTS[e].modules.some((m: string) => (m.endsWith('/') ? module.startsWith(m) : module === m)));
}

/** What the folder's source reaches: effects by import, stores by import or `stores.<name>`. */
function derive(folder: string): { effects: string[]; stores: string[]; unknown: string[] } {
  const effects = new Set<string>();
  const stores = new Set<string>();
  const unknown: string[] = [];
  for (const file of sourceOf(join(BROKER_SRC, folder))) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    for (const m of text.matchAll(EFFECT_IMPORT)) {
      const module = m[1]!;
      const effect = effectOf(module);
      if (effect === undefined) unknown.push(`${relative(REPO_ROOT, file)}: effects/${module}`);
      else if (effect === 'store') stores.add(module.slice('store/'.length, -'-store'.length));
      else if (effect !== 'plumbing') effects.add(effect);
    }
    for (const m of text.matchAll(new RegExp(`\\bstores\\.(${STORES.join('|')})\\b`, 'g'))) stores.add(m[1]!);
  }
  return { effects: [...effects].sort(), stores: [...stores].sort(), unknown };
}

const FOLDERS = Object.keys(CAPABILITIES) as (keyof typeof CAPABILITIES)[];

describe('capabilities with declared effects (re-derived from source)', () => {
  it('lists every folder of services/broker/src but effects/ and the test kit', () => {
    const folders = new Set(walkSource(BROKER_SRC).map((f) => relative(BROKER_SRC, f).split('/')).filter((p) => p.length > 1).map((p) => p[0]!));
    folders.delete('effects');
    folders.delete('testing');
    expect([...folders].sort()).toEqual([...FOLDERS].sort());
  });

  it('every effects/ module the broker uses belongs to one declared effect', () => {
    expect(FOLDERS.flatMap((f) => derive(f).unknown)).toEqual([]);
  });

  it.each(FOLDERS)('%s/ uses exactly the effects and stores it declares', (folder) => {
    const found = derive(folder);
    const declared = CAPABILITIES[folder];
    expect({ effects: found.effects, stores: found.stores }).toEqual({ effects: [...declared.may].sort(), stores: [...declared.stores].sort() });
  });

  it('the derivation sees an effect planted in a capability', () => {
    const text = "import { gitLog } from '../effects/git/log.js';";
    expect([...text.matchAll(EFFECT_IMPORT)].map((m) => effectOf(m[1]!))).toEqual(['git']);
  });
});

describe('generated from the table', () => {
  it(`${ZONES_FILE} is current (npm run gen:architecture)`, () => {
    expect(readFileSync(join(REPO_ROOT, ZONES_FILE), 'utf8')).toBe(renderZones());
  });

  it(`${DOC_FILE}'s capability table is current (npm run gen:architecture)`, () => {
    const doc = readFileSync(join(REPO_ROOT, DOC_FILE), 'utf8');
    expect(doc).toContain(DOC_BEGIN);
    expect(doc).toContain(renderCapabilityTable());
  });

  const eslint = new ESLint({ cwd: REPO_ROOT });
  const refusals = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').length;
  };

  it.each([
    ['services/broker/src/notes/probe.ts', "import { openGitRepo } from '../effects/git/git-runner.js';\nexport const x = openGitRepo;\n"],
    ['services/broker/src/reads/probe.ts', "import type { PaneDelivery } from '../effects/tmux/deliver.js';\nexport type X = PaneDelivery;\n"],
    ['services/broker/src/sources/probe.ts', "import { runFixedCommand } from '../effects/deploy/run-command.js';\nexport const x = runFixedCommand;\n"],
    ['services/broker/src/registry/probe.ts', "import type { GrantsStore } from '../effects/store/grants-store.js';\nexport type X = GrantsStore;\n"],
    ['services/broker/src/policy/probe.ts', "import type { TmuxAdapter } from '../effects/tmux/types.js';\nexport type X = TmuxAdapter;\n"],
  ])('ESLint refuses an undeclared effect in %s', async (path, code) => {
    expect(await refusals(path, code)).toBeGreaterThan(0);
  });

  it.each([
    ['services/broker/src/supervisor/probe.ts', "import type { PaneWatcher } from '../effects/tmux/pane-watch.js';\nexport type X = PaneWatcher;\n"],
    ['services/broker/src/sources/probe.ts', "import { openGitRepo } from '../effects/git/git-runner.js';\nexport const x = openGitRepo;\n"],
    ['services/broker/src/notes/probe.ts', "import type { NotesStore } from '../effects/store/notes-store.js';\nexport type X = NotesStore;\n"],
  ])('ESLint allows a declared effect in %s', async (path, code) => {
    expect(await refusals(path, code)).toBe(0);
  });
});

describe('typed views derived from the table', () => {
  // Checked by the type checker (npm run lint runs tsc over the tests): a factory declared
  // with StoresOf<C> (supervisor, notes, audit retention, registry, input services) is
  // given the stores its capability declares and nothing else.
  it("a capability's store view holds exactly its declared stores", () => {
    expectTypeOf<keyof StoresOf<'supervisor'>>().toEqualTypeOf<'bindings' | 'supervisor' | 'stateDir'>();
    expectTypeOf<keyof StoresOf<'notes'>>().toEqualTypeOf<'notes' | 'stateDir'>();
    expectTypeOf<keyof StoresOf<'reads'>>().toEqualTypeOf<'stateDir'>();
    const table: Record<string, readonly string[]> = Object.fromEntries(Object.entries(CAPABILITIES).map(([c, v]) => [c, v.stores]));
    expect(table.supervisor).toEqual(['bindings', 'supervisor']);
    expect(table.notes).toEqual(['notes']);
  });

  // The type checker holds a use case to its view only if it is given the view: a use case
  // folder names StoresOf<C>, never the whole StoreSet (only the composition roots, rpc/
  // and bin/, and effects/ itself hold the whole set).
  it('no use case takes the whole StoreSet', () => {
    const holders = ['effects', 'rpc', 'bin', 'testing'];
    const found = sourceOf(BROKER_SRC)
      .map((f) => relative(BROKER_SRC, f))
      .filter((f) => f.includes('/') && !holders.includes(f.split('/')[0]!))
      .filter((f) => /\bStoreSet\b/.test(withoutComments(readFileSync(join(BROKER_SRC, f), 'utf8'))));
    expect(found).toEqual([]);
  });
});
