// The build stamp: a hash of every build input's path, size and mtime, written to
// node_modules/.build-stamp after a successful `npm run build`. `npm start` builds only
// when the hash differs (or an output is missing), so an unchanged checkout starts in
// seconds. A hash over metadata, not content: cheap on every start, and any edit, checkout
// or `touch` changes it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Not build inputs: outputs, dependencies, docs and deployment files.
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', '.svelte-kit', '.git', 'coverage', 'docs', 'deploy', 'test-results', '.state']);
const INPUT_ROOTS = ['shared', 'services', 'web', 'test', 'bench', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'];

/** Outputs `npm start` runs; any one missing means "build". */
export const BUILD_OUTPUTS = [
  'shared/contract/dist/index.js',
  'services/broker/dist/bin/main.js',
  'services/broker/dist/effects/launch/terminal-mcp.js',
  'services/gateway/dist/bin/http.js',
  'services/observer/dist/bin/observer.js',
  'web/dist/server/main.js',
  'web/build/handler.js',
];

function walk(root, path, out) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) if (!SKIP_DIRS.has(name) && !name.endsWith('.tsbuildinfo')) walk(root, join(path, name), out);
  } else if (st.isFile()) {
    out.push(`${relative(root, path)}\0${st.size}\0${Math.trunc(st.mtimeMs)}`);
  }
}

export function sourceStamp(root) {
  const entries = [];
  for (const top of INPUT_ROOTS) walk(root, join(root, top), entries);
  return createHash('sha256').update(entries.join('\n')).digest('hex');
}

const stampPath = (root) => join(root, 'node_modules', '.build-stamp');

/** Whether the last successful build was of exactly these sources. */
export function buildIsCurrent(root, stamp = sourceStamp(root)) {
  if (BUILD_OUTPUTS.some((p) => !existsSync(join(root, p)))) return false;
  try {
    return readFileSync(stampPath(root), 'utf8').trim() === stamp;
  } catch {
    return false;
  }
}

export function writeBuildStamp(root, stamp) {
  writeFileSync(stampPath(root), `${stamp}\n`);
}
