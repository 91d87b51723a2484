// A tool call's signal aborts when the client cancels or its budget runs out, says which, and after the call ends holds nothing on the client's signal.
import { describe, expect, it } from 'vitest';
import { callBudget } from './call-budget.js';

const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

describe('callBudget', () => {
  it('aborts when the budget runs out, and says so', async () => {
    const budget = callBudget(new AbortController().signal, 20);
    await aborted(budget.signal);
    expect(budget.timedOut()).toBe(true);
    expect((budget.signal.reason as DOMException).name).toBe('TimeoutError');
    budget.dispose();
  });

  it('aborts with the client\'s reason when the client cancels, and is no timeout', async () => {
    const client = new AbortController();
    const budget = callBudget(client.signal, 60_000);
    client.abort(new Error('cancelled by the client'));
    await aborted(budget.signal);
    expect(budget.timedOut()).toBe(false);
    expect((budget.signal.reason as Error).message).toBe('cancelled by the client');
    budget.dispose();
  });

  it('starts aborted for a client signal already aborted', () => {
    const client = new AbortController();
    client.abort();
    const budget = callBudget(client.signal, 60_000);
    expect(budget.signal.aborted).toBe(true);
    budget.dispose();
  });

  it('lets go of the client signal and the timer once disposed', async () => {
    const client = new AbortController();
    const budget = callBudget(client.signal, 30);
    budget.dispose();
    client.abort();
    await new Promise((r) => setTimeout(r, 80));
    expect(budget.signal.aborted).toBe(false);
    expect(budget.timedOut()).toBe(false);
  });
});
