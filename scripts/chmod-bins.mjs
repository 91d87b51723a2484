#!/usr/bin/env node
// tsc writes files 0644; npm linked the workspace bins before the build existed, so make
// every declared bin target executable after each build (`npx terminal-mcp` etc.).
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const ws of workspaces) {
  const pkg = JSON.parse(readFileSync(join(root, ws, 'package.json'), 'utf8'));
  for (const target of Object.values(pkg.bin ?? {})) {
    const file = join(root, ws, target);
    if (existsSync(file)) chmodSync(file, 0o755);
    else console.error(`chmod-bins: ${ws}: bin ${target} was not built`);
  }
}
