#!/usr/bin/env node
// Makes every bin declared by a workspace executable and links it into node_modules/.bin,
// after each build. On a fresh clone `npm ci` runs before any dist/ file exists, and npm
// links no bin whose target is missing: without this step `npm exec terminal-mcp` fails
// and `npx terminal-mcp-webauth` falls through to the public registry, where those names
// are not ours. Links are relative, like npm's (`../@terminal-mcp/broker/dist/bin/main.js`),
// and the step is idempotent: a correct link is left alone, a wrong or stale one replaced.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `.bin/<name>` should point: through the workspace's package link in
 * node_modules, as npm does; straight at the workspace when that link is missing. */
function linkTarget(binDir, root, ws, pkgName, file) {
  const viaPackage = join(root, 'node_modules', pkgName, file);
  return relative(binDir, existsSync(join(root, 'node_modules', pkgName)) ? viaPackage : join(root, ws, file));
}

function currentLink(path) {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Links the bins of every workspace of the repository at `root`. Returns one row per bin;
 * `problem` is set for a bin whose target was not built (nothing is linked for it).
 */
export function linkWorkspaceBins(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const binDir = join(root, 'node_modules', '.bin');
  mkdirSync(binDir, { recursive: true });
  const rows = [];
  for (const ws of workspaces) {
    const pkg = JSON.parse(readFileSync(join(root, ws, 'package.json'), 'utf8'));
    const bins = typeof pkg.bin === 'string' ? { [pkg.name.split('/').pop()]: pkg.bin } : (pkg.bin ?? {});
    for (const [name, file] of Object.entries(bins)) {
      const built = resolve(root, ws, file);
      if (!existsSync(built)) {
        rows.push({ name, ws, problem: `bin ${file} was not built` });
        continue;
      }
      // tsc writes files 0644.
      chmodSync(built, 0o755);
      const link = join(binDir, name);
      const want = linkTarget(binDir, root, ws, pkg.name, file);
      const have = currentLink(link);
      if (have === want) {
        rows.push({ name, ws, link, target: want, changed: false });
        continue;
      }
      if (have !== undefined) unlinkSync(link);
      symlinkSync(want, link);
      rows.push({ name, ws, link, target: want, changed: true });
    }
  }
  return rows;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const rows = linkWorkspaceBins(root);
  const problems = rows.filter((r) => r.problem);
  for (const p of problems) console.error(`link-bins: ${p.ws}: ${p.problem}`);
  const changed = rows.filter((r) => r.changed).map((r) => r.name);
  if (changed.length > 0) console.log(`link-bins: linked ${changed.join(', ')} in node_modules/.bin`);
  if (problems.length > 0) process.exitCode = 1;
}
