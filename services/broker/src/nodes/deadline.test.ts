// Guards beforeDeadline (node health probes and node listings): an answer in time is the value, a rejection in time is thrown, a promise that does not settle is LATE.
import { describe, expect, it } from 'vitest';
import { beforeDeadline, LATE } from './deadline.js';

describe('beforeDeadline', () => {
  it('answers the value, throws the rejection, or says LATE', async () => {
    expect(await beforeDeadline(Promise.resolve(7), 60_000)).toBe(7);
    await expect(beforeDeadline(Promise.reject(new Error('refused')), 60_000)).rejects.toThrow('refused');
    expect(await beforeDeadline(new Promise<number>(() => undefined), 1)).toBe(LATE);
  });
});
