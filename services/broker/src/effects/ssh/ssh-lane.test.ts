// The nodes' ssh connects and exits take turns: never more than the lane's width at once, every one gets its turn, and a slot given back twice frees only one.
import { describe, expect, it } from 'vitest';
import { createSshLane } from './ssh-lane.js';

describe('ssh lane', () => {
  it('runs at most its width at once and every task in the end', async () => {
    const lane = createSshLane(3);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const release = await lane.acquire();
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r));
        running--;
        done.push(i);
        release();
      }),
    );
    expect(most).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('frees one slot however often a release is called', async () => {
    const lane = createSshLane(1);
    const first = await lane.acquire();
    first();
    first();
    const second = await lane.acquire();
    let third = false;
    void lane.acquire().then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    // The second still holds the only slot: the double release of the first freed no extra one.
    expect(third).toBe(false);
    second();
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(true);
  });
});

describe('a held ssh lane', () => {
  it('grants nothing until opened, then its width at once', async () => {
    const lane = createSshLane(2, { held: true });
    let granted = 0;
    for (let i = 0; i < 3; i++) void lane.acquire().then(() => granted++);
    await new Promise((r) => setImmediate(r));
    expect(granted).toBe(0);
    lane.open();
    await new Promise((r) => setImmediate(r));
    expect(granted).toBe(2);
  });
});
