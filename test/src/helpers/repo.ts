/** Paths inside this repository, for tests that run built entry points. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// dist/helpers/repo.js and src/helpers/repo.ts both sit three levels below the root.

export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}

/** The root package.json: version and workspaces. */
export function rootPackage(): { version: string; workspaces: string[] } {
  return JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string; workspaces: string[] };
}

/** Every bin every workspace declares in its package.json (what `npm run build` links into
 * node_modules/.bin), as [name, path from the repository root]. */
export function workspaceBins(): [name: string, path: string][] {
  return rootPackage().workspaces.flatMap((ws) => {
    const pkg = JSON.parse(readFileSync(repoPath(ws, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    return Object.entries(pkg.bin ?? {}).map(([name, path]): [string, string] => [name, join(ws, path)]);
  });
}
