// Guards the coalescer behind tmux's session notifications: a burst during a run costs exactly one more run (merged, newest wins by default), runs never overlap, each request resolves with a run that started after it, a failing run is reported and does not wedge it, and stop waits for the run in flight and refuses later requests.
import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.js';

/** A run the test releases by hand, so nothing depends on timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('coalesce', () => {
  it('runs a burst as one queued run, never two at once', async () => {
    const seen: number[][] = [];
    let running = 0;
    let maxRunning = 0;
    const gates = [gate(), gate()];
    const c = coalesce<number[], number>(
      async (arg) => {
        maxRunning = Math.max(maxRunning, ++running);
        seen.push(arg);
        await gates[seen.length - 1]?.opened;
        running--;
        return seen.length;
      },
      { merge: (q, n) => [...q, ...n], onError: () => {} },
    );
    const first = c.request([0]);
    const burst = Array.from({ length: 50 }, (_, i) => c.request([i + 1]));
    gates[0]!.open();
    expect(await first).toBe(1);
    gates[1]!.open();
    const results = await Promise.all(burst);
    expect(results).toEqual(Array(50).fill(2));
    expect(seen).toEqual([[0], Array.from({ length: 50 }, (_, i) => i + 1)]);
    expect(maxRunning).toBe(1);
    // Idle again: the next request runs at once.
    expect(await c.request([99])).toBe(3);
  });

  it('keeps the newest request by default, reports a failure and carries on', async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const g = gate();
    const c = coalesce<string, string>(
      async (arg) => {
        seen.push(arg);
        if (arg === 'a') {
          await g.opened;
          throw new Error('boom');
        }
        return arg;
      },
      { onError: (e) => errors.push(e) },
    );
    const a = c.request('a');
    const b = c.request('b');
    const last = c.request('c');
    g.open();
    expect(await a).toBeUndefined();
    expect(await b).toBe('c');
    expect(await last).toBe('c');
    expect(seen).toEqual(['a', 'c']);
    expect(errors).toHaveLength(1);
  });

  it('stops after the run in flight, dropping the queued one', async () => {
    const seen: number[] = [];
    const g = gate();
    const c = coalesce<number, void>(
      async (arg) => {
        seen.push(arg);
        await g.opened;
      },
      { onError: () => {} },
    );
    void c.request(1);
    const queued = c.request(2);
    let stopped = false;
    const stopping = c.stop().then(() => (stopped = true));
    expect(await queued).toBeUndefined();
    expect(stopped).toBe(false);
    g.open();
    await stopping;
    expect(await c.request(3)).toBeUndefined();
    expect(seen).toEqual([1]);
  });
});
