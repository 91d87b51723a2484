#!/usr/bin/env node
// `npm start`'s first step (before ensure-install and the build): stops at once, with the
// fix, on what would stop the start anyway (scripts/lib/preflight.mjs).
import { preflight } from './lib/preflight.mjs';

const { problems, fixed } = preflight(process.env);
for (const line of fixed) process.stdout.write(`terminal-mcp: ${line}\n`);
for (const line of problems) process.stderr.write(`terminal-mcp: ${line}\n`);
if (problems.length > 0) {
  process.stderr.write('terminal-mcp: nothing was installed, built or started.\n');
  process.exit(2);
}
