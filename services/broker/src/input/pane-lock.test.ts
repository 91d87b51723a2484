// Guards the per-pane input lock: holders are served first come first served, a throw releases the lock, a waiter that gives up never holds it, and panes do not wait on each other.
import { describe, expect, it } from 'vitest';
import { createPaneLocks, withPaneLock } from './pane-lock.js';

const LONG = 60_000;

describe('per-pane input lock', () => {
  it('serves waiters in the order they asked', async () => {
    const locks = createPaneLocks();
    const order: string[] = [];
    const first = await locks.acquire('p', LONG);
    expect(first).not.toBeNull();
    const waiters = ['b', 'c', 'd'].map((name) =>
      locks.acquire('p', LONG).then((release) => {
        order.push(name);
        return release;
      }),
    );
    await Promise.resolve();
    expect(order).toEqual([]);
    first!();
    for (const w of waiters) (await w)!();
    expect(order).toEqual(['b', 'c', 'd']);
    expect(locks.held('p')).toBe(false);
  });

  it('hands the lock to exactly one waiter per release', async () => {
    const locks = createPaneLocks();
    const first = (await locks.acquire('p', LONG))!;
    let granted = 0;
    const b = locks.acquire('p', LONG).then((r) => (granted++, r));
    const c = locks.acquire('p', LONG).then((r) => (granted++, r));
    first();
    first(); // a second release of the same hold changes nothing
    const releaseB = (await b)!;
    await new Promise((r) => setImmediate(r));
    expect(granted).toBe(1);
    releaseB();
    (await c)!();
    expect(granted).toBe(2);
  });

  it('is released when the holder throws', async () => {
    const locks = createPaneLocks();
    await expect(
      withPaneLock(locks, 'p', LONG, () => 'busy', async () => {
        expect(locks.held('p')).toBe(true);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(locks.held('p')).toBe(false);
    expect(await withPaneLock(locks, 'p', 0, () => 'busy', async () => 'ran')).toBe('ran');
  });

  it('a waiter whose wait ran out gets nothing and never holds the lock later', async () => {
    const locks = createPaneLocks();
    const holder = (await locks.acquire('p', LONG))!;
    expect(await locks.acquire('p', 0)).toBeNull();
    expect(await withPaneLock(locks, 'p', 0, () => 'busy', async () => 'ran')).toBe('busy');
    holder();
    expect(locks.held('p')).toBe(false);
  });

  it('panes are independent: a held pane does not delay another', async () => {
    const locks = createPaneLocks();
    const a = (await locks.acquire('1:%1', LONG))!;
    // Wait 0: it must be free at once, not after the other pane's holder.
    const b = await locks.acquire('1:%2', 0);
    expect(b).not.toBeNull();
    expect(locks.held('1:%1')).toBe(true);
    expect(locks.held('1:%2')).toBe(true);
    b!();
    expect(locks.held('1:%1')).toBe(true);
    a();
    expect(locks.held('1:%1')).toBe(false);
  });
});
