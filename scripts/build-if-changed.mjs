#!/usr/bin/env node
// `npm run build`, unless the sources are exactly those of the last successful build
// (scripts/lib/build-stamp.mjs); then writes the stamp. Used by `pretest`; `npm start`
// does the same itself, after checking that nothing runs from this checkout.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent, sourceStamp, writeBuildStamp } from './lib/build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = sourceStamp(root);
if (buildIsCurrent(root, stamp)) {
  process.stderr.write('terminal-mcp: build is current (sources unchanged since the last build)\n');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
writeBuildStamp(root, stamp);
