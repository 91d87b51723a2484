// Guards effects/argon2.ts: password hashes on every libuv pool thread leave no 19 MiB
// behind per thread (mimalloc purges at once), and the allocator variable neither leaks
// to the processes the broker starts nor overrides an operator's own value. Runs the
// built module in a fresh node, so the process's RSS is the module's alone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PASSWORDS = fileURLToPath(new URL('../../dist/webauth/passwords.js', import.meta.url));

/** Four pool threads, two rounds of four concurrent hashes: each thread hashes. */
const SCRIPT = `
const { hashPassword } = await import(${JSON.stringify(PASSWORDS)});
const mb = () => process.memoryUsage().rss / 1048576;
const before = mb();
for (let round = 0; round < 2; round++) await Promise.all([0, 1, 2, 3].map((i) => hashPassword('correct horse ' + round + i)));
await new Promise((r) => setTimeout(r, 200));
process.stdout.write(JSON.stringify({ grewMb: mb() - before, purgeDelay: process.env.MIMALLOC_PURGE_DELAY ?? null }));
`;

function run(extraEnv: Record<string, string> = {}): { grewMb: number; purgeDelay: string | null } {
  const env: NodeJS.ProcessEnv = { ...process.env, UV_THREADPOOL_SIZE: '4' };
  delete env.MIMALLOC_PURGE_DELAY;
  Object.assign(env, extraEnv);
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { grewMb: number; purgeDelay: string | null };
}

describe('argon2 allocator', () => {
  it('gives each hash its 19 MiB back: eight hashes on four pool threads grow RSS far less than 4 x 19 MiB', () => {
    // Without the purge option each thread keeps two hashes' 19 MiB: about +150 MB.
    const { grewMb, purgeDelay } = run();
    expect(grewMb).toBeLessThan(30);
    expect(purgeDelay).toBeNull(); // set only around the load: children do not inherit it
  });

  it("keeps an operator's own MIMALLOC_PURGE_DELAY", () => {
    expect(run({ MIMALLOC_PURGE_DELAY: '10' }).purgeDelay).toBe('10');
  });
});
