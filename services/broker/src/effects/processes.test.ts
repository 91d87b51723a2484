// Guards the process table (processes.ts): every broker module that imports node:child_process or execa is listed with who may trigger its spawn, every listed module still spawns, and no spawn takes its program from anything but constants or the operator's config.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BROKER_PROCESSES, spawningModules } from './processes.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) sources(full, out);
    else if (name.endsWith('.ts') && !/\.(test|testkit)\.ts$/.test(name)) out.push(full);
  }
  return out;
}

const SPAWNS = /^\s*import\s[^'"]*from\s*['"](?:node:)?(?:child_process|execa)['"]/m;
const spawning = sources(SRC)
  .filter((f) => SPAWNS.test(readFileSync(f, 'utf8')))
  .map((f) => relative(SRC, f))
  .sort();

describe('the broker process table', () => {
  it('finds the spawning modules it is meant to check', () => {
    expect(spawning).toContain('effects/verifier/verifier-runner.ts');
    expect(spawning.length).toBeGreaterThan(5);
  });

  it('lists every module that can start a process, and nothing that cannot', () => {
    expect(spawning).toEqual([...spawningModules()].sort());
  });

  it('says for every process where its argv comes from and who may trigger it', () => {
    for (const [id, p] of Object.entries(BROKER_PROCESSES)) {
      expect(p.argv.length, id).toBeGreaterThan(10);
      expect(p.who.length, id).toBeGreaterThan(10);
      expect(p.triggers.length, id).toBeGreaterThan(0);
      expect(p.modules.length > 0 || p.via !== undefined, id).toBe(true);
    }
  });

  it('runs client-facing commands only from the config: the verifier and deploy preview need the input effect', () => {
    expect(BROKER_PROCESSES.verifier_test_command?.triggers).toEqual(['input']);
    expect(BROKER_PROCESSES.deploy_preview_command?.triggers).toEqual(['input']);
    // The argv of both comes from the parsed config, never from a procedure's input.
    const runner = readFileSync(join(SRC, 'supervisor/verify.ts'), 'utf8');
    expect(runner).toMatch(/runTestCommand\(root, profile\.test_command,/);
    const deploy = readFileSync(join(SRC, 'projects/deploy-preview.ts'), 'utf8');
    expect(deploy).toMatch(/runFixedCommand\(command\.argv,/);
    expect(deploy).toMatch(/deploy\.commands\.find/);
  });
});
