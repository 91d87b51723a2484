/**
 * The Node flags every launch of the broker passes (the stdio launcher, `npm start`, the
 * systemd units, the test and bench helper), so the broker measured is the broker run.
 *
 * Why: the broker is a long-lived process whose live JS heap is about 19 MB, but V8 grows
 * its young generation to 2 x 16 MB semi-spaces under a read load and keeps the pages. A
 * 1 MB semi-space bounds that; the extra scavenges cost nothing measurable on the read
 * path (`npm run bench`). One V8 worker thread instead of one per core: the broker's GC
 * and compile work is small, and each thread costs a stack and a malloc arena. Measured
 * with 200 sessions after 600 reads: RSS 159-162 MB without, 127-131 MB with. These are
 * V8 options that `v8.setFlagsFromString` cannot apply once the heap exists, so they go on
 * the command line. Keep deploy/systemd/{system,user}/terminal-mcp-broker.service in step
 * (test/src/deploy-units.test.ts checks it).
 *
 * Not here: the allocator option of the argon2 native module (MIMALLOC_PURGE_DELAY=0). It
 * was the largest share of the broker's anonymous memory (38 MB from the first start's two
 * hashes, more after logins), but the broker sets it itself around that module's load
 * (effects/argon2.ts), so no launch path can miss it and no child process inherits it.
 * With it: 200 sessions 94-99 MB RSS (anonymous 45-51 MB), against 128-139 MB without.
 */
export const BROKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=1'];
