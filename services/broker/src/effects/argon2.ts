/**
 * @node-rs/argon2, loaded with its allocator told to give freed memory back at once.
 *
 * Why: the native module is Rust built with mimalloc, which keeps a freed block's pages
 * resident until the thread that freed it calls the allocator again and finds the purge
 * delay (default 10 ms) passed. Every hash and verify allocates its 19 MiB (m=19456) on a
 * libuv pool thread that then sits idle, so the pages stay for the life of the broker:
 * 38 MB from the two hashes of a first start (the bootstrap account and the dummy hash),
 * and about 150 MB (two blocks on each of the four pool threads) once logins have run.
 * Measured: a fresh broker 120 MB RSS without, 81 MB with; 200 sessions in `npm run bench`
 * (scale) 128-139 MB without, 94-99 MB with; four to forty hashes in a bare node +76 to
 * +153 MB without, under +1 MB with. The cost: each hash faults its 19 MiB in again, about
 * 8 ms on a 25 ms hash, on login only; the read path never reaches this allocator.
 *
 * mimalloc reads its options from the environment once, when the module is loaded, so the
 * variable is set just around the (synchronous) load and removed again: the tmux and git
 * processes the broker starts, and the shells in tmux, do not inherit it. An operator's
 * own MIMALLOC_PURGE_DELAY is left as it is.
 */
import type * as Argon2Module from '@node-rs/argon2';
import { createRequire } from 'node:module';

type Argon2 = typeof Argon2Module;

const ARGON2_ALLOCATOR_ENV = { MIMALLOC_PURGE_DELAY: '0' } as const;

function loadArgon2(): Argon2 {
  const set = Object.entries(ARGON2_ALLOCATOR_ENV).filter(([name]) => process.env[name] === undefined);
  for (const [name, value] of set) process.env[name] = value;
  try {
    return createRequire(import.meta.url)('@node-rs/argon2') as Argon2;
  } finally {
    for (const [name] of set) delete process.env[name];
  }
}

export const { hash, verify } = loadArgon2();
export type { Options } from '@node-rs/argon2';
