/**
 * Whether an agent CLI on the screen says it hit a usage limit, which limit, and the
 * absolute instant it resets. Pure: a function of the sanitized screen lines, the clock
 * and the zones it is given; zones are resolved with Intl, nothing is read from the host.
 *
 * Wordings (ARCHITECTURE.md §5d, as users quote them in the tools' public issues):
 * - Claude Code: `You've hit your session limit · resets 4:20pm (Asia/Tbilisi)`,
 *   `You've hit your weekly limit · resets 3am (Europe/London)`, `You're out of extra
 *   usage · resets 11:30am (Asia/Colombo)`, older `5-hour limit reached ∙ resets 3pm`,
 *   dated `resets Jul 18 at 4am (Europe/Vienna)`.
 * - Codex: `■ You've hit your usage limit. Upgrade to Pro (…) or try again in 4 days 6
 *   hours 37 minutes.`, newer `… or try again at 2:51 PM.`; its TUI wraps long lines at
 *   word boundaries, so a message may continue on the next lines (tmux's own wraps are
 *   joined by the capture, -J).
 *
 * Rules: the reset time is read in the zone the message names, else the pane's `TZ`, else
 * the host's; a time of day already past means that time tomorrow; a date already past
 * means that date next year. A message counts only near the bottom of the screen with
 * nothing typed below it (only blank lines, rules, an empty input box, footers and the
 * CLI's own hints): a message followed by an answer is history. A limit headline without
 * a reset we can read, or a zone Intl does not know, is not a limit: nothing is guessed.
 */

/** `usage`: Codex's plan limit, which does not say whether it is the 5-hour or the weekly one. */
export type UsageLimitKind = 'session' | 'weekly' | 'extra_usage' | 'usage';
export type UsageLimitProgram = 'claude code' | 'codex';
export type ZoneSource = 'message' | 'pane' | 'host';

export interface UsageLimit {
  readonly kind: UsageLimitKind;
  readonly program: UsageLimitProgram;
  /** Milliseconds since the epoch. */
  readonly resetsAt: number;
  /** The IANA zone the reset time was read in (relative resets: the host's, unused). */
  readonly zone: string;
  readonly zoneSource: ZoneSource;
  /** The message as read (joined when it wrapped), trimmed and cut. */
  readonly message: string;
}

export interface UsageLimitContext {
  readonly now: number;
  /** The pane's `TZ` when known (an IANA name); ignored when Intl does not know it. */
  readonly paneZone?: string | undefined;
  /** The host's zone (Intl.DateTimeFormat().resolvedOptions().timeZone). */
  readonly hostZone: string;
}

/** How many non-empty lines from the bottom may hold the message. */
const LIMIT_WINDOW = 10;
/** A wrapped message continues on at most this many lines. */
const WRAP_LINES = 3;
const MESSAGE_MAX = 200;

interface Headline {
  readonly pattern: RegExp;
  readonly kind: UsageLimitKind;
  readonly program: UsageLimitProgram;
}

/** Checked in order; the first that matches a line names the limit. */
const HEADLINES: readonly Headline[] = [
  { pattern: /\byou(?:'|’)ve hit your session limit\b/i, kind: 'session', program: 'claude code' },
  { pattern: /\byou(?:'|’)ve hit your weekly limit\b/i, kind: 'weekly', program: 'claude code' },
  { pattern: /\byou(?:'|’)re out of extra usage\b/i, kind: 'extra_usage', program: 'claude code' },
  { pattern: /\b5-hour limit reached\b/i, kind: 'session', program: 'claude code' },
  { pattern: /\bweekly limit reached\b/i, kind: 'weekly', program: 'claude code' },
  { pattern: /\bopus limit reached\b/i, kind: 'weekly', program: 'claude code' },
  { pattern: /\byou(?:'|’)ve hit your usage limit\b/i, kind: 'usage', program: 'codex' },
];

/** Lines that may sit below the message without meaning someone answered it. */
const BENIGN_BELOW: readonly RegExp[] = [
  /^\s*[─━-]{3,}\s*$/, // rules around an input box
  /^\s*[╭╰][─━]*[╮╯]?\s*$/, // box borders
  /^\s*[│┃|]?\s*[>❯›▌]?\s*[│┃|]?\s*$/, // an empty input line
  /^\s*\/(?:upgrade|extra-usage|rate-limit-options|status|login)\b/i, // the CLI's own hints
  /\?\s+for shortcuts/i,
  /⏎\s*send\b/,
  /\(shift\+tab to cycle\)/i,
  /\bto (?:increase|add) (?:your )?(?:usage|funds|extra usage)\b/i,
];

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?`;
/** `4:20pm`, `3 PM`, `11:30am`, `18:44`, `3am`. */
const TIME = String.raw`(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?`;
const ZONE = String.raw`(?:\s*\(([A-Za-z_]+(?:/[A-Za-z0-9_+-]+){0,2}|UTC|GMT)\))?`;

/** `resets Jul 18 at 4am (Europe/Vienna)`, `resets 16:21 on 19 May`, `resets 4:20pm (Asia/Tbilisi)`. */
const RESETS_MONTH_DAY = new RegExp(String.raw`\bresets\s+${MONTH}\s+(\d{1,2})(?:,|\s+at)?\s+${TIME}${ZONE}`, 'i');
const RESETS_TIME_ON_DAY = new RegExp(String.raw`\bresets\s+${TIME}\s+on\s+(\d{1,2})\s+${MONTH}${ZONE}`, 'i');
const RESETS_TIME = new RegExp(String.raw`\bresets\s+(?:at\s+)?${TIME}${ZONE}(?![\d:])`, 'i');
const AGAIN_AT = new RegExp(String.raw`\btry again at\s+${TIME}${ZONE}(?![\d:])`, 'i');
const AGAIN_IN = /\b(?:try again|resets)\s+in\s+((?:\d{1,4}\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+)/i;

const UNIT_MS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^d/, 86_400_000],
  [/^h/, 3_600_000],
  [/^m/, 60_000],
  [/^s/, 1_000],
];

function validZone(zone: string | undefined): string | null {
  if (zone === undefined || zone === '') return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

interface WallClock {
  year: number;
  month: number; // 0-11
  day: number;
  hour: number;
  minute: number;
}

/** The wall clock in `zone` at `instant`. */
function wallClockAt(instant: number, zone: string): WallClock & { second: number } {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const get = (parts: Intl.DateTimeFormatPart[], type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const parts = f.formatToParts(new Date(instant));
  return { year: get(parts, 'year'), month: get(parts, 'month') - 1, day: get(parts, 'day'), hour: get(parts, 'hour') % 24, minute: get(parts, 'minute'), second: get(parts, 'second') };
}

/** Milliseconds `zone` is ahead of UTC at `instant`. */
function offsetAt(instant: number, zone: string): number {
  const w = wallClockAt(instant, zone);
  return Date.UTC(w.year, w.month, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

/** The instant the wall clock in `zone` shows `w`. Two passes settle the offset; a wall
 * time a DST change skips or repeats resolves to one of the two offsets' readings (an
 * hour either way, and only for a reset set inside that hour). */
export function instantOf(w: WallClock, zone: string): number {
  const asUtc = Date.UTC(w.year, w.month, w.day, w.hour, w.minute);
  let instant = asUtc - offsetAt(asUtc, zone);
  instant = asUtc - offsetAt(instant, zone);
  return instant;
}

function hour24(hourText: string, minuteText: string | undefined, meridiem: string | undefined): { hour: number; minute: number } | null {
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (minute > 59) return null;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    const pm = meridiem.toLowerCase().startsWith('p');
    hour = (hour % 12) + (pm ? 12 : 0);
  } else {
    // A bare `3` with neither minutes nor am/pm is not a time we read.
    if (minuteText === undefined || hour > 23) return null;
  }
  return { hour, minute };
}

function zoneFor(named: string | undefined, ctx: UsageLimitContext): { zone: string; source: ZoneSource } | null {
  if (named !== undefined) {
    const zone = validZone(named);
    return zone === null ? null : { zone, source: 'message' };
  }
  const pane = validZone(ctx.paneZone);
  if (pane !== null) return { zone: pane, source: 'pane' };
  const host = validZone(ctx.hostZone);
  return host === null ? null : { zone: host, source: 'host' };
}

/** The first instant after now that the wall clock in `zone` reads h:m. */
function nextTimeOfDay(hour: number, minute: number, zone: string, now: number): number {
  const today = wallClockAt(now, zone);
  for (let add = 0; add < 3; add += 1) {
    const day = new Date(Date.UTC(today.year, today.month, today.day + add));
    const at = instantOf({ year: day.getUTCFullYear(), month: day.getUTCMonth(), day: day.getUTCDate(), hour, minute }, zone);
    if (at > now) return at;
  }
  return instantOf({ ...today, hour, minute }, zone) + 2 * 86_400_000;
}

function nextDate(month: number, day: number, hour: number, minute: number, zone: string, now: number): number | null {
  if (day < 1 || day > 31) return null;
  const year = wallClockAt(now, zone).year;
  for (const y of [year, year + 1]) {
    // A 31 Feb is not a date: Date.UTC would roll it into March.
    if (new Date(Date.UTC(y, month, day)).getUTCMonth() !== month) continue;
    const at = instantOf({ year: y, month, day, hour, minute }, zone);
    if (at > now) return at;
  }
  return null;
}

function durationMs(text: string): number | null {
  let total = 0;
  let any = false;
  for (const m of text.matchAll(/(\d{1,4})\s*([a-z]+)/gi)) {
    const unit = UNIT_MS.find(([re]) => re.test((m[2] as string).toLowerCase()));
    if (unit === undefined) return null;
    total += Number(m[1]) * unit[1];
    any = true;
  }
  return any ? total : null;
}

interface Reset {
  readonly resetsAt: number;
  readonly zone: string;
  readonly zoneSource: ZoneSource;
}

/** The reset instant the text states, or null when it states none we can read. */
export function parseReset(text: string, ctx: UsageLimitContext): Reset | null {
  const rel = AGAIN_IN.exec(text);
  if (rel !== null) {
    const ms = durationMs(rel[1] as string);
    const host = validZone(ctx.hostZone) ?? 'UTC';
    return ms === null || ms === 0 ? null : { resetsAt: ctx.now + ms, zone: host, zoneSource: 'host' };
  }
  const md = RESETS_MONTH_DAY.exec(text);
  if (md !== null) {
    const t = hour24(md[3] as string, md[4], md[5]);
    const z = zoneFor(md[6], ctx);
    if (t === null || z === null) return null;
    const at = nextDate(MONTHS.indexOf((md[1] as string).toLowerCase()), Number(md[2]), t.hour, t.minute, z.zone, ctx.now);
    return at === null ? null : { resetsAt: at, zone: z.zone, zoneSource: z.source };
  }
  const td = RESETS_TIME_ON_DAY.exec(text);
  if (td !== null) {
    const t = hour24(td[1] as string, td[2], td[3]);
    const z = zoneFor(td[6], ctx);
    if (t === null || z === null) return null;
    const at = nextDate(MONTHS.indexOf((td[5] as string).toLowerCase()), Number(td[4]), t.hour, t.minute, z.zone, ctx.now);
    return at === null ? null : { resetsAt: at, zone: z.zone, zoneSource: z.source };
  }
  const tm = RESETS_TIME.exec(text) ?? AGAIN_AT.exec(text);
  if (tm !== null) {
    const t = hour24(tm[1] as string, tm[2], tm[3]);
    const z = zoneFor(tm[4], ctx);
    if (t === null || z === null) return null;
    return { resetsAt: nextTimeOfDay(t.hour, t.minute, z.zone, ctx.now), zone: z.zone, zoneSource: z.source };
  }
  return null;
}

function nonEmptyBottom(lines: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i -= 1) {
    const line = (lines[i] as string).trimEnd();
    if (line.trim() !== '') out.push(line);
  }
  return out.reverse();
}

/** A wrapped line that continues the time or duration of the line above. */
const CARRIES_ON = /^[\s│┃|]*(?:\d|[ap]\.?m\b|\(|on\b|at\b|(?:days?|hours?|hrs?|minutes?|mins?|seconds?|secs?)\b)/i;
const benign = (line: string) => BENIGN_BELOW.some((b) => b.test(line));

const clean = (line: string) => line.replace(/^[\s│┃|■•⎿●⏺]+/, '').replace(/[\s│┃|]+$/, '');

/** The usage limit the bottom of the screen shows, or null. */
export function findUsageLimit(lines: readonly string[], ctx: UsageLimitContext): UsageLimit | null {
  const bottom = nonEmptyBottom(lines, LIMIT_WINDOW);
  for (let i = bottom.length - 1; i >= 0; i -= 1) {
    const line = bottom[i] as string;
    const headline = HEADLINES.find((h) => h.pattern.test(line));
    if (headline === undefined) continue;
    // The message may wrap onto the next lines (Codex wraps at words): read the shortest
    // text that states a reset, longer only while the next line carries on the time
    // (`PM.`, `(Asia/Tbilisi)`, `hours 37 minutes`), so an answer typed below is never
    // taken for part of the message.
    let text = clean(line);
    let n = 1;
    for (;;) {
      const next = bottom[i + n];
      const continuable = next !== undefined && n <= WRAP_LINES && !benign(next) && !HEADLINES.some((h) => h.pattern.test(next));
      const reset = parseReset(text, ctx);
      if (reset !== null && !(continuable && next !== undefined && CARRIES_ON.test(next))) {
        // Whatever follows the message must be benign; else it was answered.
        if (!bottom.slice(i + n).every(benign)) return null;
        const message = text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text;
        return { kind: headline.kind, program: headline.program, ...reset, message };
      }
      if (!continuable) return null;
      text = `${text} ${clean(next)}`.replace(/\s+/g, ' ');
      n += 1;
    }
  }
  return null;
}

/** Whether the bottom of the screen may hold a limit message: a cheap test, so the pane's
 * TZ is looked up only for screens that need it. */
export function mayShowUsageLimit(lines: readonly string[]): boolean {
  return nonEmptyBottom(lines, LIMIT_WINDOW).some((line) => HEADLINES.some((h) => h.pattern.test(line)));
}

/** The host's zone, for callers that have no better one. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
