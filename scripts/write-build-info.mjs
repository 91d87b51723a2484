#!/usr/bin/env node
// Writes services/gateway/dist/build-info.json ({ commit, dirty, built_at }) for the
// gateway's /version endpoint. Outside a git checkout (a tarball, a container without
// .git) it writes "unknown" rather than failing the build. Build tooling, not service
// code: it lives here, outside services/, because it spawns git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const gatewayDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'services', 'gateway');
const out = join(gatewayDir, 'dist', 'build-info.json');

function git(args) {
  // GIT_OPTIONAL_LOCKS=0: `git status` must not refresh (write) the index of the checkout.
  return execFileSync('git', args, {
    cwd: gatewayDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
  });
}

let commit = 'unknown';
let dirty = 'unknown';
try {
  commit = git(['rev-parse', 'HEAD']).trim();
  dirty = git(['status', '--porcelain']).trim().length > 0;
} catch {
  // not a git checkout, no commits yet, or git missing
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ commit, dirty, built_at: new Date().toISOString() }, null, 2)}\n`);
process.stderr.write(`build-info: ${out} (commit ${commit}${dirty === true ? ', dirty' : ''})\n`);
