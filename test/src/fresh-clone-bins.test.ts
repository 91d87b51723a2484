// Guards issue 8 §3: on a fresh clone (npm ci links no bin, because dist/ does not exist yet) the build's link step links every bin every workspace declares, relative like npm, each an executable file that runs.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/repo.js';

interface Bin {
  name: string;
  ws: string;
  pkgName: string;
  file: string;
}

let base: string;
let clone: string;
let fakeNodeDir: string;
let bins: Bin[];

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { name: string; workspaces?: string[]; bin?: Record<string, string>; scripts?: Record<string, string> };

/** What every workspace of the clone declares (the clone's own package.json files, so a
 * bin added later is covered without touching this test). */
function declaredBins(root: string): Bin[] {
  return readJson(join(root, 'package.json')).workspaces!.flatMap((ws) => {
    const pkg = readJson(join(root, ws, 'package.json'));
    return Object.entries(pkg.bin ?? {}).map(([name, file]) => ({ name, ws, pkgName: pkg.name, file }));
  });
}

const linkStep = () => execFileSync(process.execPath, [join(clone, 'scripts', 'link-bins.mjs')], { cwd: clone, encoding: 'utf8' });

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-fresh-clone-'));
  clone = join(base, 'clone');
  // The committed tree, exactly as `git clone` gives it: no node_modules, no dist.
  execFileSync('git', ['clone', '-q', '--no-hardlinks', REPO_ROOT, clone], { stdio: 'ignore' });
  bins = declaredBins(clone);
  // What `npm ci` leaves, cheaply: the workspace package links and an empty .bin (the
  // real install would take minutes and prove nothing more about linking).
  mkdirSync(join(clone, 'node_modules', '.bin'), { recursive: true });
  for (const ws of readJson(join(clone, 'package.json')).workspaces!) {
    const { name } = readJson(join(clone, ws, 'package.json'));
    const link = join(clone, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), join(clone, ws)), link);
  }
  // What tsc leaves: this checkout's built files, 0644 as tsc writes them.
  for (const ws of new Set(bins.map((b) => b.ws))) {
    cpSync(join(REPO_ROOT, ws, 'dist'), join(clone, ws, 'dist'), { recursive: true });
  }
  for (const b of bins) chmodSync(join(clone, b.ws, b.file), 0o644);
  // Running a linked bin must not start a service: `node` on PATH is a stand-in that
  // checks the script parses (node --check) and says which file the kernel handed it.
  fakeNodeDir = join(base, 'fake-node');
  mkdirSync(fakeNodeDir);
  writeFileSync(join(fakeNodeDir, 'node'), `#!/bin/sh\n'${process.execPath}' --check "$1" && echo "ran $(realpath "$1")"\n`);
  chmodSync(join(fakeNodeDir, 'node'), 0o755);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('bins on a fresh clone', () => {
  it('starts like npm ci leaves it: no terminal-mcp bin linked', () => {
    expect(bins.map((b) => b.name)).toContain('terminal-mcp');
    expect(readdirSync(join(clone, 'node_modules', '.bin')).filter((n) => n.startsWith('terminal-mcp'))).toEqual([]);
  });

  it('the build runs the link step after everything is built', () => {
    const build = readJson(join(clone, 'package.json')).scripts!.build!;
    expect(build).toMatch(/npm run build -w web && node scripts\/link-bins\.mjs/);
  });

  it('links every declared bin, relative like npm, to an executable built file that runs', () => {
    linkStep();
    for (const b of bins) {
      const link = join(clone, 'node_modules', '.bin', b.name);
      const target = readlinkSync(link);
      expect({ bin: b.name, target }).toEqual({ bin: b.name, target: join('..', b.pkgName, b.file.replace(/^\.\//, '')) });
      const real = realpathSync(link);
      expect(real).toBe(realpathSync(join(clone, b.ws, b.file)));
      expect(statSync(real).mode & 0o111).toBe(0o111);
      // Executed through the link: the kernel follows it, needs the exec bit, reads the shebang.
      const out = execFileSync(link, [], { env: { PATH: `${fakeNodeDir}:/usr/bin:/bin` }, encoding: 'utf8' });
      expect(out.trim()).toBe(`ran ${real}`);
    }
  });

  it('is idempotent and repairs a stale or foreign link', () => {
    const stale = join(clone, 'node_modules', '.bin', bins[0]!.name);
    rmSync(stale);
    symlinkSync('../nowhere/gone.js', stale);
    const foreign = join(clone, 'node_modules', '.bin', bins[1]!.name);
    rmSync(foreign);
    writeFileSync(foreign, '#!/bin/sh\necho not ours\n');
    const before = new Map(bins.slice(2).map((b) => [b.name, lstatSync(join(clone, 'node_modules', '.bin', b.name)).ino]));
    const out = linkStep();
    expect(out).toContain(bins[0]!.name);
    for (const b of bins) expect(existsSync(realpathSync(join(clone, 'node_modules', '.bin', b.name)))).toBe(true);
    expect(readlinkSync(foreign)).toBe(join('..', bins[1]!.pkgName, bins[1]!.file.replace(/^\.\//, '')));
    // Correct links are left alone.
    for (const [name, ino] of before) expect(lstatSync(join(clone, 'node_modules', '.bin', name)).ino).toBe(ino);
    expect(linkStep()).toBe('');
  });

  it('fails the build when a declared bin was not built', () => {
    const missing = bins[0]!;
    rmSync(join(clone, missing.ws, missing.file));
    const err = (() => {
      try {
        linkStep();
        return undefined;
      } catch (e) {
        return e as { status: number; stderr: Buffer | string };
      }
    })();
    expect(err?.status).toBe(1);
    expect(String(err?.stderr)).toContain(`bin ${missing.file} was not built`);
  });
});
