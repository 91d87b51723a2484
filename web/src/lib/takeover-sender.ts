/**
 * Sends take-over input to `/api/input` in the order it was typed: one request at a time
 * (the broker takes a per-pane lease anyway), consecutive text coalesced while a request
 * is in flight, key lists cut to the per-call maximum. C-c and C-d wait for the
 * operator's confirmation; a refusal stops the queue and is reported (the rest of the
 * batch is dropped: typing on after a refusal would land out of context).
 */
import { terminalDataToSteps, type InputStep } from './terminal-keys.js';
import type { UiError } from './ui-error.js';

/** From the server (the contract's SENSITIVE_KEYS and INPUT_LIMITS.keysPerCall). */
export interface TakeoverLimits {
  sensitiveKeys: readonly string[];
  keysPerCall: number;
}

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
  private readonly sensitive: ReadonlySet<string>;
  /** The pane the view shows (its tab: `%id` or `window.pane`); undefined: the active one.
   * Read when each batch is posted, so keystrokes follow the tab. */
  pane: string | undefined = undefined;

  constructor(
    private readonly session: string,
    private readonly limits: TakeoverLimits,
    private readonly callbacks: TakeoverCallbacks,
    private readonly post: (body: unknown) => Promise<{ ok: boolean; error?: UiError }> = postInput,
  ) {
    this.sensitive = new Set(limits.sensitiveKeys);
  }

  /** Raw terminal data from xterm's onData. */
  type(data: string): void {
    this.enqueue(terminalDataToSteps(data, this.sensitive));
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
        const per = Math.max(1, this.limits.keysPerCall);
        for (let i = 0; i < step.keys.length; i += per) {
          this.queue.push({ kind: 'keys', keys: step.keys.slice(i, i + per), confirm: false });
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
        const sensitive = job.kind === 'keys' ? job.keys.find((k) => this.sensitive.has(k)) : undefined;
        if (job.kind === 'keys' && sensitive !== undefined) {
          const key = sensitive;
          if (!(await this.callbacks.confirmSensitive(key))) continue;
          job.confirm = true;
        }
        const target = this.pane === undefined ? { session: this.session } : { session: this.session, pane: this.pane };
        const body = job.kind === 'text' ? { ...target, text: job.text } : { ...target, keys: job.keys, ...(job.confirm ? { confirm: true } : {}) };
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
