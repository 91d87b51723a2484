/**
 * The tmux control-mode (`tmux -C`) output stream as a pure parser: text in, events out,
 * no process and no timers, so every rule below is tested with strings
 * (control-protocol.test.ts). Both control clients use it: the broker's command client
 * (control-client.ts) and the output watchers (pane-watch.ts).
 *
 * What tmux 3.3a writes, one line each (LF only; a CR is data):
 * - `%begin <time> <number> <flags>` ... `%end|%error <time> <number> <flags>`: a reply
 *   block. Only the exact terminator of the open block ends it; inside, every line is
 *   data, including lines that look like notifications. The first block answers the
 *   attach itself (`attach` event). After it, flags 1 answers our commands in the order
 *   they were written (`reply`, matched to `expect()` calls); flags 0 carries the output of
 *   the user's `after-<command>` hooks and is skipped.
 * - `%output %<pane> <data>`: pane output, octal-escaped by tmux so it never spans lines.
 * - `%exit [reason]`: the client is leaving; nothing follows.
 * - any other `%name args`: a notification.
 *
 * Strict: anything else (a stray `%end`, text outside a block, a malformed or non-increasing
 * command number, a reply with nothing expected, a line longer than the cap) is a `desync`
 * event, after which the stream stops: a caller never guesses where the stream resumes.
 *
 * Fencing. Command replies are NOT escaped: `capture-pane -p` writes pane text verbatim,
 * so a pane that displays `%end <time> <number> 1` (both guessable) would end its reply
 * early and the lines after it could pose as replies to the next commands. A command
 * whose reply holds pane text is therefore expected with a fence: the caller writes, on
 * the next line, `display-message -p '<fence>'`, a secret no pane can know. Everything up
 * to the fence block (`%begin`, fence, `%end`) is collected, and the reply is whatever
 * precedes the LAST terminator matching the command's own `%begin`: a forged terminator
 * can only appear earlier, in the data, so it is kept as data (counted in `imitations`).
 *
 * Compound replies. One command line can answer with several blocks: every command of a
 * `;` list gets its own, and `if-shell` answers with one of its own and then one for
 * each command of the branch it ran (tmux inserts them right after it, before the next
 * line). How many depends on what ran (a failing command skips the rest of its list), so
 * a line expected as `compound` is followed by a fence line too, and its reply is every
 * block (flags 1) up to the fence's: each kept as a part (ok and lines), the fence block
 * itself dropped. Only lines whose blocks carry no pane text are sent this way (the
 * input delivery's checked paste: buffer, option and key commands, and a
 * `display-message -p` of a constant): a block is ended by its exact terminator, as an
 * ordinary reply is.
 */

/** What the parser reports, in stream order. `T` is the caller's token for a command. */
/** One block of a compound reply. */
export interface ReplyPart {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

export type ControlEvent<T> =
  | { readonly type: 'attach'; readonly ok: boolean; readonly lines: readonly string[] }
  | {
      readonly type: 'reply';
      readonly token: T;
      readonly ok: boolean;
      readonly lines: readonly string[];
      readonly imitations: number;
      /** A compound reply's blocks, in order (`ok`: all of them; `lines`: all of theirs). */
      readonly parts?: readonly ReplyPart[];
    }
  | { readonly type: 'notification'; readonly name: string; readonly args: string }
  | { readonly type: 'output'; readonly paneId: string; readonly data: Buffer }
  | { readonly type: 'exit'; readonly reason: string }
  | { readonly type: 'desync'; readonly why: string };

export interface ControlStreamOptions {
  /** A line (or an unterminated tail) longer than this is not tmux: desync. Default none. */
  maxLineChars?: number;
}

const OUTPUT_PANE_RE = /^%\d{1,10}$/;
/** `<time> <number> <flags>` of a %begin line. */
const BLOCK_TAIL_RE = /^\d{1,20} \d{1,15} \d{1,5}$/;

interface Expected<T> {
  readonly token: T;
  readonly fence: string | null;
  /** Every block up to the fence's is this reply's (see the module comment). */
  readonly compound: boolean;
}

/** Collecting a compound reply's blocks until the fence block. */
interface CompoundScan<T> {
  readonly expected: Expected<T>;
  readonly fence: string;
  readonly parts: ReplyPart[];
}

/** Collecting a fenced reply: every line until its fence block is complete. */
interface FenceScan<T> {
  readonly expected: Expected<T>;
  readonly fence: string;
  readonly replyNumber: number;
  /** The two lines that can end the fenced command's own reply. */
  readonly endLine: string;
  readonly errorLine: string;
  /** How many of them were seen; more than one means the pane imitated one. */
  terminators: number;
  readonly lines: string[];
  /** Tail of the %begin just before a fence line: the next line should end that block. */
  fenceTail: string | null;
}

/** An open (unfenced) block. */
interface Block<T> {
  /** `<time> <number> <flags>` */
  readonly tail: string;
  readonly kind: 'attach' | 'reply' | 'hook' | 'part';
  readonly expected: Expected<T> | undefined;
  readonly lines: string[];
}

export class ControlStream<T = unknown> {
  private readonly maxLineChars: number;
  private carry = '';
  private readonly expected: Expected<T>[] = [];
  private head = 0;
  private attached = false;
  private stopped = false;
  private block: Block<T> | null = null;
  private fenceScan: FenceScan<T> | null = null;
  private compound: CompoundScan<T> | null = null;
  private lastNumber = -1;
  private events: ControlEvent<T>[] = [];

  constructor(options: ControlStreamOptions = {}) {
    this.maxLineChars = options.maxLineChars ?? Number.POSITIVE_INFINITY;
  }

  /** True once the attach block ended: only then may commands be written (tmux 3.3a runs
   * commands read earlier before the client has a session). */
  get isAttached(): boolean {
    return this.attached;
  }

  /** True after `exit` or `desync`: further input is ignored. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Records that a command was written; its reply will carry `token`. `fence` is the
   * secret the caller prints with `display-message -p` on the line after it. A
   * `compound` command (it needs a fence) answers with every block up to the fence's. */
  expect(token: T, fence: string | null = null, compound = false): void {
    if (compound && fence === null) throw new Error('a compound command needs a fence');
    this.expected.push({ token, fence, compound });
  }

  /** How many commands written are still waiting for their reply. */
  get pendingReplies(): number {
    return this.expected.length - this.head;
  }

  /** Takes every token still waiting for a reply, oldest first. */
  drain(): T[] {
    const tokens = this.expected.slice(this.head).map((e) => e.token);
    this.expected.length = 0;
    this.head = 0;
    return tokens;
  }

  /** Feeds a chunk of stdout (any split); returns the events it completes. */
  push(chunk: string): ControlEvent<T>[] {
    if (this.stopped) return [];
    let data = this.carry === '' ? chunk : this.carry + chunk;
    this.carry = '';
    let start = 0;
    for (;;) {
      const nl = data.indexOf('\n', start);
      if (nl < 0) break;
      if (nl - start > this.maxLineChars) {
        this.desync('line too long');
        break;
      }
      this.onLine(data.slice(start, nl));
      if (this.stopped) break;
      start = nl + 1;
    }
    if (!this.stopped) {
      data = data.slice(start);
      if (data.length > this.maxLineChars) this.desync('line too long');
      else this.carry = data;
    }
    const events = this.events;
    this.events = [];
    return events;
  }

  private onLine(line: string): void {
    if (this.fenceScan !== null) return this.onFencedLine(this.fenceScan, line);
    const block = this.block;
    if (block !== null) {
      const tail = block.tail;
      if (line.charCodeAt(0) === 0x25 /* % */ && line.endsWith(tail)) {
        if (line.length === tail.length + 5 && line.startsWith('%end ')) return this.endBlock(block, true);
        if (line.length === tail.length + 7 && line.startsWith('%error ')) return this.endBlock(block, false);
      }
      if (block.kind !== 'hook') block.lines.push(line);
      return;
    }
    if (line.startsWith('%begin ')) return this.onBegin(line.slice(7));
    if (line.startsWith('%end ') || line.startsWith('%error ')) return this.desync('reply terminator outside a block');
    if (line.charCodeAt(0) !== 0x25) return this.desync('text outside a reply block');
    this.onOutsideLine(line);
  }

  /** A `%` line outside any block: output, exit or a notification. */
  private onOutsideLine(line: string): void {
    if (line.startsWith('%output ')) {
      const space = line.indexOf(' ', 8);
      const paneId = space < 0 ? '' : line.slice(8, space);
      if (!OUTPUT_PANE_RE.test(paneId)) return this.desync('malformed %output');
      this.events.push({ type: 'output', paneId, data: decodeControlOutput(line.slice(space + 1)) });
      return;
    }
    if (line === '%exit' || line.startsWith('%exit ')) {
      this.stopped = true;
      this.events.push({ type: 'exit', reason: line.slice(6) });
      return;
    }
    const space = line.indexOf(' ');
    const name = space < 0 ? line.slice(1) : line.slice(1, space);
    this.events.push({ type: 'notification', name, args: space < 0 ? '' : line.slice(space + 1) });
  }

  private onBegin(rest: string): void {
    const parts = rest.split(' ');
    const number = Number(parts[1]);
    if (!BLOCK_TAIL_RE.test(rest) || !Number.isSafeInteger(number) || number <= this.lastNumber) {
      return this.desync('malformed or out-of-order %begin');
    }
    this.lastNumber = number;
    if (!this.attached) {
      this.block = { tail: rest, kind: 'attach', expected: undefined, lines: [] };
      return;
    }
    if (parts[2] !== '1') {
      this.block = { tail: rest, kind: 'hook', expected: undefined, lines: [] };
      return;
    }
    const expected = this.expected[this.head];
    if (this.compound === null && expected !== undefined && expected.compound) {
      this.compound = { expected, fence: expected.fence as string, parts: [] };
    }
    if (this.compound !== null) {
      this.block = { tail: rest, kind: 'part', expected: this.compound.expected, lines: [] };
      return;
    }
    if (expected !== undefined && expected.fence !== null) {
      this.fenceScan = {
        expected,
        fence: expected.fence,
        replyNumber: number,
        endLine: `%end ${rest}`,
        errorLine: `%error ${rest}`,
        terminators: 0,
        lines: [],
        fenceTail: null,
      };
      return;
    }
    this.block = { tail: rest, kind: 'reply', expected, lines: [] };
  }

  private endBlock(block: Block<T>, ok: boolean): void {
    this.block = null;
    if (block.kind === 'hook') return;
    if (block.kind === 'part') return this.endPart(this.compound as CompoundScan<T>, ok, block.lines);
    if (block.kind === 'attach') {
      this.attached = true;
      this.events.push({ type: 'attach', ok, lines: block.lines });
      return;
    }
    if (block.expected === undefined) return this.desync('reply with no pending command');
    this.shift();
    this.events.push({ type: 'reply', token: block.expected.token, ok, lines: block.lines, imitations: 0 });
  }

  /** A block of a compound reply ended; the fence's ends the reply. */
  private endPart(scan: CompoundScan<T>, ok: boolean, lines: string[]): void {
    if (!(ok && lines.length === 1 && lines[0] === scan.fence)) {
      scan.parts.push({ ok, lines });
      return;
    }
    this.compound = null;
    this.shift();
    this.events.push({
      type: 'reply',
      token: scan.expected.token,
      ok: scan.parts.every((p) => p.ok),
      lines: scan.parts.flatMap((p) => p.lines),
      imitations: 0,
      parts: scan.parts,
    });
  }

  private onFencedLine(scan: FenceScan<T>, line: string): void {
    const fenceTail = scan.fenceTail;
    if (fenceTail !== null) {
      scan.fenceTail = null;
      if (line.length === fenceTail.length + 5 && line.startsWith('%end ') && line.endsWith(fenceTail)) {
        return this.endFencedReply(scan, fenceTail);
      }
    }
    const lines = scan.lines;
    if (line.charCodeAt(0) === 0x25 && (line === scan.endLine || line === scan.errorLine)) scan.terminators++;
    if (line === scan.fence && lines.length > 0) {
      const previous = lines[lines.length - 1] as string;
      if (previous.startsWith('%begin ')) scan.fenceTail = previous.slice(7);
    }
    lines.push(line);
  }

  /** The fence block is complete: cut the reply at the last terminator matching its own
   * %begin; what lies between that terminator and the fence is tmux's own output. */
  private endFencedReply(scan: FenceScan<T>, fenceTail: string): void {
    this.fenceScan = null;
    const lines = scan.lines;
    lines.length -= 2; // the fence's %begin and the fence line
    const fenceNumber = Number(fenceTail.split(' ')[1]);
    const { endLine, errorLine } = scan;
    let cut = lines.length - 1;
    while (cut >= 0 && lines[cut] !== endLine && lines[cut] !== errorLine) cut--;
    if (cut < 0 || !Number.isSafeInteger(fenceNumber) || fenceNumber <= scan.replyNumber) {
      return this.desync('fenced reply without its terminator');
    }
    const ok = lines[cut] === endLine;
    const between = lines.slice(cut + 1);
    lines.length = cut;
    // Between the reply's terminator and the fence only hook blocks (flags 0) and
    // notifications may appear; their command numbers must still increase.
    this.lastNumber = scan.replyNumber;
    let hookTail: string | null = null;
    for (const line of between) {
      if (hookTail !== null) {
        if (line === `%end ${hookTail}` || line === `%error ${hookTail}`) hookTail = null;
        continue;
      }
      if (line.startsWith('%begin ')) {
        const parts = line.slice(7).split(' ');
        const number = Number(parts[1]);
        if (!BLOCK_TAIL_RE.test(line.slice(7)) || parts[2] === '1' || !Number.isSafeInteger(number) || number <= this.lastNumber) {
          return this.desync('unexpected block before the fence');
        }
        this.lastNumber = number;
        hookTail = line.slice(7);
        continue;
      }
      if (line.startsWith('%end ') || line.startsWith('%error ')) return this.desync('reply terminator outside a block');
      if (line.charCodeAt(0) !== 0x25) return this.desync('text outside a reply block');
      this.onOutsideLine(line);
      if (this.stopped) return;
    }
    if (hookTail !== null || fenceNumber <= this.lastNumber) return this.desync('fence inside a hook block');
    this.lastNumber = fenceNumber;
    this.shift();
    this.events.push({ type: 'reply', token: scan.expected.token, ok, lines, imitations: scan.terminators - 1 });
  }

  private shift(): void {
    this.head++;
    if (this.head === this.expected.length) {
      this.expected.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.expected.length) {
      this.expected.splice(0, this.head);
      this.head = 0;
    }
  }

  private desync(why: string): void {
    this.stopped = true;
    this.block = null;
    this.fenceScan = null;
    this.compound = null;
    this.events.push({ type: 'desync', why });
  }
}

/** Decodes the octal escapes tmux puts in `%output` data (a backslash and three octal
 * digits, `\134` for a backslash itself) back to bytes. */
export function decodeControlOutput(escaped: string): Buffer {
  const out = Buffer.from(escaped, 'utf8');
  let w = 0;
  for (let r = 0; r < out.length; r++) {
    const c = out[r] as number;
    if (c === 0x5c && r + 3 < out.length && isOctal(out[r + 1]) && isOctal(out[r + 2]) && isOctal(out[r + 3])) {
      out[w++] = (((out[r + 1] as number) - 48) << 6) | (((out[r + 2] as number) - 48) << 3) | ((out[r + 3] as number) - 48);
      r += 3;
    } else {
      out[w++] = c;
    }
  }
  return out.subarray(0, w);
}

function isOctal(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 55;
}
