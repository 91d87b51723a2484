#!/usr/bin/env node
// Installs dependencies when they are missing or stale, so `npm start` and `npm test`
// work on a fresh clone. "Stale" means package-lock.json changed since the last install
// (its hash is stamped into node_modules).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.install-stamp');

const hash = existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'no-lock';
const current = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (current === hash && existsSync(join(root, 'node_modules', '.bin', 'tsc'))) process.exit(0);

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
process.stderr.write(`terminal-mcp: dependencies missing or stale, running npm ${args[0]} (better-sqlite3 compiles from source: ~2 min)\n`);
execFileSync(npm, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
writeFileSync(stamp, `${hash}\n`);
