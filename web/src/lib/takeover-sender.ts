/**
 * Sends take-over input to `/api/input` in the order it was typed: one request at a time
 * (the broker takes a per-pane lease anyway), consecutive text coalesced while a request
 * is in flight, key lists cut to the per-call maximum. C-c and C-d wait for the
 * operator's confirmation; a refusal stops the queue and is reported (the rest of the
 * batch is dropped: typing on after a refusal would land out of context).
 */
import { INPUT_LIMITS } from '@terminal-mcp/contract';
import { isSensitiveKey, terminalDataToSteps, type InputStep } from './terminal-keys.js';
import type { UiError } from './ui-error.js';

export interface TakeoverCallbacks {
  /** Ask before a key that interrupts or ends the program; resolve true to send it. */
  confirmSensitive(key: string): Promise<boolean>;
  onError(error: UiError): void;
  /** A sequence the allowlist has no key for (e.g. F5): nothing was sent. */
  onRefusedLocally(sequence: string): void;
  onSent?(): void;
}

type Job = { kind: 'text'; text: string } | { kind: 'keys'; keys: string[]; confirm: boolean };

export class TakeoverSender {
  private queue: Job[] = [];
  private running = false;

  constructor(
    private readonly session: string,
    private readonly callbacks: TakeoverCallbacks,
    private readonly post: (body: unknown) => Promise<{ ok: boolean; error?: UiError }> = postInput,
  ) {}

  /** Raw terminal data from xterm's onData. */
  type(data: string): void {
    this.enqueue(terminalDataToSteps(data));
  }

  /** Keys from a button (quick answer, Esc, arrows). */
  press(keys: readonly string[]): void {
    this.enqueue([{ kind: 'keys', keys: [...keys] } as InputStep]);
  }

  private enqueue(steps: InputStep[]): void {
    for (const step of steps) {
      if (step.kind === 'refused') {
        this.callbacks.onRefusedLocally(step.sequence);
        continue;
      }
      const last = this.queue.at(-1);
      if (step.kind === 'text') {
        if (last?.kind === 'text' && last.text.length + step.text.length <= 2048) last.text += step.text;
        else this.queue.push({ kind: 'text', text: step.text });
      } else {
        for (let i = 0; i < step.keys.length; i += INPUT_LIMITS.keysPerCall) {
          this.queue.push({ kind: 'keys', keys: step.keys.slice(i, i + INPUT_LIMITS.keysPerCall), confirm: false });
        }
      }
    }
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.queue.shift(); job; job = this.queue.shift()) {
        if (job.kind === 'keys' && job.keys.some(isSensitiveKey)) {
          const key = job.keys.find(isSensitiveKey)!;
          if (!(await this.callbacks.confirmSensitive(key))) continue;
          job.confirm = true;
        }
        const body = job.kind === 'text' ? { session: this.session, text: job.text } : { session: this.session, keys: job.keys, ...(job.confirm ? { confirm: true } : {}) };
        const result = await this.post(body).catch((): { ok: false; error: UiError } => ({ ok: false, error: { code: 'BROKER_UNAVAILABLE' } }));
        if (!result.ok) {
          this.queue = [];
          this.callbacks.onError(result.error ?? { code: 'INTERNAL' });
          break;
        }
        this.callbacks.onSent?.();
      }
    } finally {
      this.running = false;
    }
  }
}

async function postInput(body: unknown): Promise<{ ok: boolean; error?: UiError }> {
  const r = await fetch('/api/input', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status === 401) return { ok: false, error: { code: 'UNAUTHENTICATED' } };
  try {
    return (await r.json()) as { ok: boolean; error?: UiError };
  } catch {
    return { ok: false, error: { code: 'INTERNAL' } };
  }
}
