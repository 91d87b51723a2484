/**
 * The Node flags every launch of the broker passes (the stdio launcher, `npm start`, the
 * systemd units, the test and bench helper), so the broker measured is the broker run.
 *
 * Why: the broker is a long-lived process whose live JS heap is about 17-25 MB, but V8
 * grows its young generation to 2 x 16 MB semi-spaces under a read load and keeps the
 * pages. A 1 MB semi-space bounds that; the extra scavenges cost nothing measurable on the
 * read path (`npm run bench`). One V8 worker thread instead of one per core: the broker's
 * GC and compile work is small, and each thread costs a stack and a malloc arena. Measured
 * with 200 sessions after 600 reads: RSS 159-162 MB without, 127-131 MB with. These are
 * V8 options that `v8.setFlagsFromString` cannot apply once the heap exists, so they go on
 * the command line. Keep deploy/systemd/{system,user}/terminal-mcp-broker.service in step
 * (test/src/deploy-units.test.ts checks it).
 *
 * Not here: the allocator option of the argon2 native module (MIMALLOC_PURGE_DELAY=0). It
 * was the largest share of the broker's anonymous memory (38 MB from the first start's two
 * hashes, more after logins), but the broker sets it itself around that module's load
 * (effects/argon2.ts), so no launch path can miss it and no child process inherits it.
 * With it: 200 sessions 91-103 MB RSS (anonymous 42-54 MB), against 128-139 MB without.
 *
 * Tried and left out (200 sessions, `npm run bench` scale, with effects/argon2.ts):
 * --optimize-for-size saves about 10 MB (83-88 MB) by keeping the old generation near its
 * live size, but does it with more mark-compacts on the read path: 5 instead of 1 during
 * the tail and list sections, 24-70 ms of pauses instead of 2 ms, one of 41 ms, and the
 * HTTP tail p99 rose from 12 to 32-68 ms. --single-threaded (88-93 MB) puts all GC on the
 * main thread. MALLOC_ARENA_MAX=2, UV_THREADPOOL_SIZE=2 and --single-threaded-gc gain
 * nothing (a fresh broker 81 MB either way; one malloc arena besides the main one, under
 * 2 MB).
 */
export const BROKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=1'];
