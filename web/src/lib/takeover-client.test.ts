// Take-over input leaves the page in typing order, one request at a time, with C-c sent only after the operator confirms and nothing more after a refusal; view preferences never go below 12 px.
import { INPUT_LIMITS, SENSITIVE_KEYS } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { TakeoverSender } from './takeover-sender.js';
import type { UiError } from './ui-error.js';
import { parseViewPrefs } from './view-prefs.js';

function harness(opts: { confirm?: boolean; refuseAt?: number } = {}) {
  const posted: unknown[] = [];
  const errors: UiError[] = [];
  const refusedLocally: string[] = [];
  let asked = 0;
  const sender = new TakeoverSender(
    'claude-a',
    { sensitiveKeys: [...SENSITIVE_KEYS], keysPerCall: INPUT_LIMITS.keysPerCall },
    {
      confirmSensitive: async () => {
        asked++;
        return opts.confirm ?? false;
      },
      onError: (e) => errors.push(e),
      onRefusedLocally: (s) => refusedLocally.push(s),
    },
    async (body) => {
      posted.push(body);
      await new Promise((r) => setTimeout(r, 1));
      return posted.length === opts.refuseAt ? { ok: false, error: { code: 'INPUT_NOT_ALLOWED' } } : { ok: true };
    },
  );
  const settled = async () => {
    for (let i = 0; i < 50; i++) await new Promise((r) => setTimeout(r, 2));
  };
  return { sender, posted, errors, refusedLocally, asked: () => asked, settled };
}

describe('TakeoverSender', () => {
  it('keeps typing order and coalesces text typed while a request is in flight', async () => {
    const h = harness();
    h.sender.type('a');
    h.sender.type('b');
    h.sender.type('c\r');
    h.sender.type('\x1b[A');
    await h.settled();
    expect(h.posted).toEqual([
      { session: 'claude-a', text: 'a' },
      { session: 'claude-a', text: 'bc' },
      { session: 'claude-a', keys: ['Enter'] },
      { session: 'claude-a', keys: ['Up'] },
    ]);
  });

  it('sends C-c only after confirmation, with confirm set', async () => {
    const no = harness({ confirm: false });
    no.sender.type('\x03');
    no.sender.type('x');
    await no.settled();
    expect(no.asked()).toBe(1);
    expect(no.posted).toEqual([{ session: 'claude-a', text: 'x' }]);

    const yes = harness({ confirm: true });
    yes.sender.press(['C-c']);
    await yes.settled();
    expect(yes.posted).toEqual([{ session: 'claude-a', keys: ['C-c'], confirm: true }]);
  });

  it('drops the rest of the queue after a refusal and reports it; unmapped keys are refused locally', async () => {
    const h = harness({ refuseAt: 1 });
    h.sender.type('a');
    h.sender.type('b');
    h.sender.type('\x1b[15~');
    await h.settled();
    expect(h.posted).toEqual([{ session: 'claude-a', text: 'a' }]);
    expect(h.errors).toEqual([{ code: 'INPUT_NOT_ALLOWED' }]);
    expect(h.refusedLocally).toEqual(['\\x1b[15~']);
  });
});

describe('parseViewPrefs', () => {
  it.each([
    [null, { cardFontPx: 12, fullFontPx: 15, wide: false }],
    ['{"cardFontPx":6,"fullFontPx":99,"wide":true}', { cardFontPx: 12, fullFontPx: 22, wide: true }],
    ['{"cardFontPx":"big","wide":"yes"}', { cardFontPx: 12, fullFontPx: 15, wide: false }],
    ['not json', { cardFontPx: 12, fullFontPx: 15, wide: false }],
  ])('%s', (raw, prefs) => {
    expect(parseViewPrefs(raw)).toEqual(prefs);
  });
});
