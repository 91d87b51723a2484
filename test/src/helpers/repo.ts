/** Paths inside this repository, for tests that run built entry points. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// dist/helpers/repo.js and src/helpers/repo.ts both sit three levels below the root.

export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}
