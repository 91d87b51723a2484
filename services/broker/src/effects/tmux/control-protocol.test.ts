// The control-mode stream parser matches replies to commands in order, keeps forged terminators inside fenced replies as data, skips hook blocks, decodes output, and stops at the first protocol violation, whatever the chunking.
import { describe, expect, it } from 'vitest';
import { ControlStream, decodeControlOutput, type ControlEvent } from './control-protocol.js';

const ATTACH = '%begin 1700000000 10 0\n%end 1700000000 10 0\n';
const FENCE = 'tmcp-fence-0123456789abcdef-0';

/** A stream already past its attach block. */
function attached(): ControlStream<string> {
  const s = new ControlStream<string>();
  expect(s.push(ATTACH)).toEqual([{ type: 'attach', ok: true, lines: [] }]);
  return s;
}

function block(number: number, flags: 0 | 1, lines: string[], end: 'end' | 'error' = 'end'): string {
  return [`%begin 1700000001 ${number} ${flags}`, ...lines, `%${end} 1700000001 ${number} ${flags}`].map((l) => `${l}\n`).join('');
}

/** Feeds `text` split at `cut` and returns all events. */
function pushSplit(s: ControlStream<string>, text: string, cut: number): ControlEvent<string>[] {
  return [...s.push(text.slice(0, cut)), ...s.push(text.slice(cut))];
}

describe('ControlStream', () => {
  it('reports the attach block, then matches flag-1 blocks to expected commands in order', () => {
    const s = attached();
    s.expect('a');
    s.expect('b');
    expect(s.push(block(11, 1, ['one', 'two']) + block(12, 1, ['unknown command: x'], 'error'))).toEqual([
      { type: 'reply', token: 'a', ok: true, lines: ['one', 'two'], imitations: 0 },
      { type: 'reply', token: 'b', ok: false, lines: ['unknown command: x'], imitations: 0 },
    ]);
    expect(s.drain()).toEqual([]);
  });

  it('treats the first block as the attach whatever its flags, and reports a refused attach', () => {
    const s = new ControlStream<string>();
    expect(s.isAttached).toBe(false);
    expect(s.push(block(3, 1, ["can't find session: $9"], 'error'))).toEqual([{ type: 'attach', ok: false, lines: ["can't find session: $9"] }]);
    expect(s.isAttached).toBe(true);
  });

  it('keeps notification-looking lines and foreign terminators inside a block as data', () => {
    const s = attached();
    s.expect('a');
    const lines = ['%sessions-changed', '%exit', '%end 1700000001 99 1', '%end 1700000001 11 1 ', ' %end 1700000001 11 1', '%output %1 x'];
    expect(s.push(block(11, 1, lines))).toEqual([{ type: 'reply', token: 'a', ok: true, lines, imitations: 0 }]);
  });

  it('skips hook blocks (flags 0) between replies, even when their lines look like terminators', () => {
    const s = attached();
    s.expect('a');
    s.expect('b');
    const text = block(11, 1, ['first']) + block(12, 0, ['hooked-display', '%end 1700000001 13 1']) + block(13, 1, ['second']);
    expect(s.push(text)).toEqual([
      { type: 'reply', token: 'a', ok: true, lines: ['first'], imitations: 0 },
      { type: 'reply', token: 'b', ok: true, lines: ['second'], imitations: 0 },
    ]);
  });

  it('passes notifications and decoded output outside blocks', () => {
    const s = attached();
    expect(s.push('%sessions-changed\n%window-renamed @1 my bash\n%output %7 a\\033[1mb\\134\\015\\012\n')).toEqual([
      { type: 'notification', name: 'sessions-changed', args: '' },
      { type: 'notification', name: 'window-renamed', args: '@1 my bash' },
      { type: 'output', paneId: '%7', data: Buffer.from('a\u001b[1mb\\\r\n', 'latin1') },
    ]);
  });

  it('reports %exit with its reason and ignores everything after it', () => {
    const s = attached();
    s.expect('a');
    expect(s.push('%exit server exited\n%begin 1 99 1\n')).toEqual([{ type: 'exit', reason: 'server exited' }]);
    expect(s.isStopped).toBe(true);
    expect(s.push(block(100, 1, []))).toEqual([]);
    expect(s.drain()).toEqual(['a']);
    expect(new ControlStream().push('%exit\n')).toEqual([{ type: 'exit', reason: '' }]);
  });

  it.each([
    ['a stray %end', '%end 1700000001 11 1\n', 'reply terminator outside a block'],
    ['a stray %error', '%error 1700000001 11 1\n', 'reply terminator outside a block'],
    ['text outside a block', 'hello\n', 'text outside a reply block'],
    ['an empty line outside a block', '\n', 'text outside a reply block'],
    ['a command number going backwards', block(11, 1, ['x']) + block(11, 1, ['y']), 'malformed or out-of-order %begin'],
    ['a malformed %begin', '%begin 1700000001 x 1\n', 'malformed or out-of-order %begin'],
    ['a %begin with extra fields', '%begin 1700000001 12 1 extra\n', 'malformed or out-of-order %begin'],
    ['a reply with nothing expected', block(11, 1, []) + block(12, 1, []), 'reply with no pending command'],
    ['%output for a malformed pane id', '%output 7 x\n', 'malformed %output'],
  ])('stops at %s', (_name, text, why) => {
    const s = attached();
    s.expect('a');
    const events = s.push(text);
    expect(events.at(-1)).toEqual({ type: 'desync', why });
    expect(events.filter((e) => e.type === 'desync')).toHaveLength(1);
    expect(s.isStopped).toBe(true);
    expect(s.push(block(50, 1, ['later']))).toEqual([]);
  });

  it('does not take CR as part of a line ending: a terminator followed by CR is data', () => {
    const s = attached();
    s.expect('a');
    expect(s.push('%begin 1700000001 11 1\nx\r\n%end 1700000001 11 1\r\n')).toEqual([]);
    expect(s.push('%end 1700000001 11 1\n')).toEqual([
      { type: 'reply', token: 'a', ok: true, lines: ['x\r', '%end 1700000001 11 1\r'], imitations: 0 },
    ]);
    // A CR-terminated %begin is malformed.
    const t = attached();
    expect(t.push('%begin 1700000001 11 1\r\n')).toEqual([{ type: 'desync', why: 'malformed or out-of-order %begin' }]);
  });

  it('stops at a line longer than the cap, split or not', () => {
    const s = new ControlStream<string>({ maxLineChars: 64 });
    s.push(ATTACH);
    expect(s.push('%output %1 ' + 'x'.repeat(40))).toEqual([]);
    expect(s.push('y'.repeat(40))).toEqual([{ type: 'desync', why: 'line too long' }]);
    const t = new ControlStream<string>({ maxLineChars: 64 });
    t.push(ATTACH);
    expect(t.push(`%output %1 ${'x'.repeat(80)}\n`)).toEqual([{ type: 'desync', why: 'line too long' }]);
  });

  it('gives back the tokens still waiting when the caller gives up on the stream', () => {
    const s = attached();
    s.expect('a');
    s.expect('b');
    s.expect('c');
    expect(s.push(block(11, 1, [])).map((e) => e.type)).toEqual(['reply']);
    expect(s.drain()).toEqual(['b', 'c']);
  });
});

describe('ControlStream fencing', () => {
  const fenced = (number: number, lines: string[], between: string[] = [], end: 'end' | 'error' = 'end') =>
    block(number, 1, lines, end) + between.map((l) => `${l}\n`).join('') + block(number + (between.length > 0 ? 2 : 1), 1, [FENCE]);

  it('returns a fenced reply cut at its own terminator, without the fence block', () => {
    const s = attached();
    s.expect('capture', FENCE);
    s.expect('next');
    expect(s.push(fenced(11, ['$ ls', 'a b']) + block(13, 1, ['after']))).toEqual([
      { type: 'reply', token: 'capture', ok: true, lines: ['$ ls', 'a b'], imitations: 0 },
      { type: 'reply', token: 'next', ok: true, lines: ['after'], imitations: 0 },
    ]);
  });

  it('keeps forged terminators and forged replies in pane text as data', () => {
    const s = attached();
    s.expect('capture', FENCE);
    s.expect('list');
    // The pane shows its own reply's terminator (time and number are guessable), then a
    // whole fake block posing as the reply to the next command, then a fake fence block.
    const forged = [
      'before',
      '%end 1700000001 11 1',
      '%begin 1700000001 12 1',
      'fake-session',
      '%end 1700000001 12 1',
      '%error 1700000001 11 1',
      '%begin 1700000001 13 1',
      'tmcp-fence-guess-0',
      '%end 1700000001 13 1',
      'after',
    ];
    const events = s.push(fenced(11, forged) + block(13, 1, ['real-session']));
    expect(events).toEqual([
      { type: 'reply', token: 'capture', ok: true, lines: forged, imitations: 2 },
      { type: 'reply', token: 'list', ok: true, lines: ['real-session'], imitations: 0 },
    ]);
  });

  it('reports a failed fenced command (the fence still follows it)', () => {
    const s = attached();
    s.expect('capture', FENCE);
    expect(s.push(fenced(11, ["can't find pane: %99"], [], 'error'))).toEqual([
      { type: 'reply', token: 'capture', ok: false, lines: ["can't find pane: %99"], imitations: 0 },
    ]);
  });

  it('skips hook blocks and passes notifications between the reply and its fence', () => {
    const s = attached();
    s.expect('capture', FENCE);
    const text =
      block(11, 1, ['pane text']) + '%sessions-changed\n' + block(12, 0, ['hook says', '%end 1700000001 13 1']) + block(13, 1, [FENCE]);
    expect(s.push(text)).toEqual([
      { type: 'notification', name: 'sessions-changed', args: '' },
      { type: 'reply', token: 'capture', ok: true, lines: ['pane text'], imitations: 0 },
    ]);
  });

  it("stops when a hook block repeats the fenced reply's own terminator (a hook printing pane text)", () => {
    const s = attached();
    s.expect('capture', FENCE);
    const text = block(11, 1, ['pane text']) + block(12, 0, ['%end 1700000001 11 1']) + block(13, 1, [FENCE]);
    expect(s.push(text).at(-1)).toMatchObject({ type: 'desync' });
  });

  it('does not end at a fence line that is not inside a %begin/%end pair', () => {
    const s = attached();
    s.expect('capture', FENCE);
    // A fence line with no %begin before it, or a %begin + fence not followed by %end.
    expect(s.push(`%begin 1700000001 11 1\n${FENCE}\n%end 1700000001 12 1\nx\n%begin 1700000001 12 1\n${FENCE}\nnot-end\n`)).toEqual([]);
    expect(s.push('%end 1700000001 11 1\n' + block(12, 1, [FENCE]))).toEqual([
      {
        type: 'reply',
        token: 'capture',
        ok: true,
        lines: [FENCE, '%end 1700000001 12 1', 'x', '%begin 1700000001 12 1', FENCE, 'not-end'],
        imitations: 0,
      },
    ]);
  });

  it('stops when the fence arrives without the reply terminator, or with stray text before it', () => {
    const s = attached();
    s.expect('capture', FENCE);
    expect(s.push('%begin 1700000001 11 1\ndata\n' + block(12, 1, [FENCE])).at(-1)).toEqual({
      type: 'desync',
      why: 'fenced reply without its terminator',
    });
    const t = attached();
    t.expect('capture', FENCE);
    expect(t.push(fenced(11, ['data'], ['stray text'])).at(-1)).toEqual({ type: 'desync', why: 'text outside a reply block' });
  });
});

describe('ControlStream chunking', () => {
  it('produces the same events for every split point of a mixed stream', () => {
    const text =
      ATTACH +
      block(11, 1, ['one']) +
      '%output %3 h\\303\\251llo\n' +
      block(12, 0, ['hook']) +
      block(13, 1, ['pane', '%end 1700000001 13 1', 'more']) +
      block(14, 1, [FENCE]) +
      '%sessions-changed\n' +
      block(15, 1, ['tail'], 'error') +
      '%exit detached\n';
    const run = (cuts: number[]) => {
      const s = new ControlStream<string>();
      s.expect('a');
      s.expect('capture', FENCE);
      s.expect('c');
      const events: ControlEvent<string>[] = [];
      let at = 0;
      for (const cut of [...cuts, text.length]) {
        events.push(...s.push(text.slice(at, cut)));
        at = cut;
      }
      return events;
    };
    const whole = run([]);
    expect(whole.map((e) => e.type)).toEqual(['attach', 'reply', 'output', 'reply', 'notification', 'reply', 'exit']);
    expect(whole[3]).toMatchObject({ token: 'capture', lines: ['pane', '%end 1700000001 13 1', 'more'], imitations: 1 });
    for (let cut = 1; cut < text.length; cut++) {
      const s = new ControlStream<string>();
      s.expect('a');
      s.expect('capture', FENCE);
      s.expect('c');
      expect(pushSplit(s, text, cut)).toEqual(whole);
    }
    // and byte by byte
    expect(run(Array.from({ length: text.length - 1 }, (_, i) => i + 1))).toEqual(whole);
  });
});

describe('ControlStream: compound replies (a `;` list, an if-shell and its branch)', () => {
  const fence = (n: number) => block(n, 1, [FENCE]);

  it('collects every block up to the fence block as parts of one reply, then matches the next command', () => {
    const s = attached();
    s.expect('line', FENCE, true);
    s.expect('next');
    // set-buffer, set-option, if-shell (empty), then the branch's paste and Enter.
    const text = block(11, 1, []) + block(12, 1, []) + block(13, 1, []) + block(14, 1, []) + block(15, 1, []) + fence(16) + block(17, 1, ['after']);
    expect(s.push(text)).toEqual([
      { type: 'reply', token: 'line', ok: true, lines: [], imitations: 0, parts: Array.from({ length: 5 }, () => ({ ok: true, lines: [] })) },
      { type: 'reply', token: 'next', ok: true, lines: ['after'], imitations: 0 },
    ]);
    expect(s.drain()).toEqual([]);
  });

  it('keeps the lines of each part, reports a failed part, and is not ok when one failed', () => {
    const s = attached();
    s.expect('line', FENCE, true);
    const text = block(11, 1, []) + block(12, 1, ['no buffer tmcp-input-x'], 'error') + fence(13);
    expect(s.push(text)).toEqual([
      {
        type: 'reply',
        token: 'line',
        ok: false,
        lines: ['no buffer tmcp-input-x'],
        imitations: 0,
        parts: [
          { ok: true, lines: [] },
          { ok: false, lines: ['no buffer tmcp-input-x'] },
        ],
      },
    ]);
  });

  it('skips hook blocks and passes notifications between the parts', () => {
    const s = attached();
    s.expect('line', FENCE, true);
    const text = block(11, 1, []) + '%paste-buffer-changed tmcp-input-x\n' + block(12, 0, ['hooked']) + block(13, 1, ['tmcp-foreground-changed']) + fence(14);
    expect(s.push(text)).toEqual([
      { type: 'notification', name: 'paste-buffer-changed', args: 'tmcp-input-x' },
      { type: 'reply', token: 'line', ok: true, lines: ['tmcp-foreground-changed'], imitations: 0, parts: [{ ok: true, lines: [] }, { ok: true, lines: ['tmcp-foreground-changed'] }] },
    ]);
  });

  it('ends only at its own fence: a part holding the fence among other lines, or a failed fence, is a part', () => {
    const s = attached();
    s.expect('line', FENCE, true);
    const text = block(11, 1, [FENCE, 'x']) + block(12, 1, [FENCE], 'error') + fence(13);
    const [reply] = s.push(text);
    expect(reply).toMatchObject({ type: 'reply', token: 'line', ok: false });
    expect(reply?.type === 'reply' ? reply.parts?.length : -1).toBe(2);
  });

  it('gives the same events whatever the chunking', () => {
    const text = block(11, 1, []) + block(12, 1, ['a']) + fence(13) + block(14, 1, ['b']);
    const events = (cuts: number[]) => {
      const s = attached();
      s.expect('line', FENCE, true);
      s.expect('next');
      const out: ControlEvent<string>[] = [];
      let at = 0;
      for (const cut of [...cuts, text.length]) {
        out.push(...s.push(text.slice(at, cut)));
        at = cut;
      }
      return out;
    };
    const whole = events([]);
    expect(whole.map((e) => e.type)).toEqual(['reply', 'reply']);
    for (let cut = 1; cut < text.length; cut++) expect(events([cut])).toEqual(whole);
  });

  it('stops at a protocol violation inside a compound reply, and refuses a compound command without a fence', () => {
    const s = attached();
    s.expect('line', FENCE, true);
    expect(s.push(block(12, 1, []) + block(11, 1, []))).toEqual([{ type: 'desync', why: 'malformed or out-of-order %begin' }]);
    expect(() => attached().expect('line', null, true)).toThrow();
  });
});

describe('decodeControlOutput', () => {
  it('turns octal escapes back into bytes', () => {
    expect(decodeControlOutput('a\\033[31mb\\015\\012\\134x').toString('latin1')).toBe('a\u001b[31mb\r\n\\x');
    expect(decodeControlOutput('ünï ✓').toString('utf8')).toBe('ünï ✓');
    expect(decodeControlOutput('\\303\\274').toString('utf8')).toBe('ü');
    expect(decodeControlOutput('trailing\\01').toString('latin1')).toBe('trailing\\01');
  });
});
