// Guards: every real-format usage-limit message yields its exact reset instant (the message's zone, else the pane's TZ, else the host's; a past time means the next day), and unknown or answered wording is never a limit.
import { describe, expect, it } from 'vitest';
import { findUsageLimit, type UsageLimitContext, type UsageLimitKind } from './usage-limit.js';

/** Friday 10 July 2026, 12:00 UTC: Tbilisi 16:00, London 13:00 (BST), Colombo 17:30,
 * Vienna 14:00 (CEST), New York 08:00 (EDT), Los Angeles 05:00 (PDT), Sydney 22:00. */
const NOW = Date.parse('2026-07-10T12:00:00Z');
const UTC_HOST: UsageLimitContext = { now: NOW, hostZone: 'UTC' };

const CLAUDE_BOX = ['', '────────────────────────────────', '❯ ', '────────────────────────────────', '  ? for shortcuts'];
const CODEX_FOOTER = ['', '› ', '', '  ⏎ send   ⌃J newline   ⌃T transcript   ⌃C quit'];

interface Case {
  readonly name: string;
  readonly lines: readonly string[];
  readonly ctx?: Partial<UsageLimitContext>;
  readonly at: string;
  readonly kind: UsageLimitKind;
  readonly program?: 'claude code' | 'codex';
  readonly zoneSource?: 'message' | 'pane' | 'host';
}

const CORPUS: readonly Case[] = [
  // Claude Code, 12-hour times with the zone in parentheses.
  { name: 'session limit, later today in the message zone', lines: ["⏺ You've hit your session limit · resets 4:20pm (Asia/Tbilisi)", ...CLAUDE_BOX], at: '2026-07-10T12:20:00Z', kind: 'session', zoneSource: 'message' },
  { name: 'weekly limit, 3am already past in London: tomorrow', lines: ["You've hit your weekly limit · resets 3am (Europe/London)"], at: '2026-07-11T02:00:00Z', kind: 'weekly' },
  { name: 'extra usage, half-hour zone, past: tomorrow', lines: ["You're out of extra usage · resets 11:30am (Asia/Colombo)"], at: '2026-07-11T06:00:00Z', kind: 'extra_usage' },
  { name: 'older 5-hour wording, no zone: the host zone (UTC)', lines: ['5-hour limit reached ∙ resets 3pm', '/upgrade to increase your usage limit.'], at: '2026-07-10T15:00:00Z', kind: 'session', zoneSource: 'host' },
  { name: 'no zone: the host zone (New York)', lines: ['5-hour limit reached ∙ resets 3pm'], ctx: { hostZone: 'America/New_York' }, at: '2026-07-10T19:00:00Z', kind: 'session', zoneSource: 'host' },
  { name: "no zone: the pane's TZ before the host's", lines: ['5-hour limit reached ∙ resets 3pm'], ctx: { paneZone: 'Europe/Vienna', hostZone: 'America/New_York' }, at: '2026-07-10T13:00:00Z', kind: 'session', zoneSource: 'pane' },
  { name: "the message's zone before the pane's", lines: ["You've hit your session limit · resets 3pm (Asia/Tbilisi)"], ctx: { paneZone: 'Europe/Vienna' }, at: '2026-07-11T11:00:00Z', kind: 'session', zoneSource: 'message' },
  { name: "a pane TZ Intl does not know: the host's", lines: ['5-hour limit reached ∙ resets 3pm'], ctx: { paneZone: 'Mars/Olympus' }, at: '2026-07-10T15:00:00Z', kind: 'session', zoneSource: 'host' },
  { name: 'followed by the upgrade hint and the input box', lines: ["You've hit your session limit · resets 5pm (Europe/London)", '/upgrade to increase your usage limit.', ...CLAUDE_BOX], at: '2026-07-10T16:00:00Z', kind: 'session' },
  { name: 'under the tool-result elbow', lines: ["  ⎿  You've hit your session limit · resets 4:20pm (Asia/Tbilisi)"], at: '2026-07-10T12:20:00Z', kind: 'session' },
  { name: 'typographic apostrophe', lines: ['You’ve hit your weekly limit · resets 9pm (Europe/London)'], at: '2026-07-10T20:00:00Z', kind: 'weekly' },
  { name: '12am is midnight, past: tomorrow', lines: ["You've hit your session limit · resets 12am (UTC)"], at: '2026-07-11T00:00:00Z', kind: 'session' },
  { name: '12pm is noon, past in Kolkata: tomorrow', lines: ["You've hit your session limit · resets 12pm (Asia/Kolkata)"], at: '2026-07-11T06:30:00Z', kind: 'session' },
  { name: 'late evening west of UTC lands on the next UTC day', lines: ["You've hit your session limit · resets 11:59pm (America/Los_Angeles)"], at: '2026-07-11T06:59:00Z', kind: 'session' },
  { name: 'upper-case PM with a space', lines: ["You've hit your session limit · resets 4:45 PM (Europe/Vienna)"], at: '2026-07-10T14:45:00Z', kind: 'session' },
  // 24-hour times.
  { name: '24-hour time, host zone', lines: ["You've hit your session limit · resets 18:44"], at: '2026-07-10T18:44:00Z', kind: 'session' },
  { name: '24-hour time already past: tomorrow', lines: ["You've hit your session limit · resets 06:05 (Europe/Vienna)"], at: '2026-07-11T04:05:00Z', kind: 'session' },
  // Dates.
  { name: '/status style date with a zone', lines: ["You've hit your weekly limit · Resets Jul 18 at 4am (Europe/Vienna)"], at: '2026-07-18T02:00:00Z', kind: 'weekly' },
  { name: 'date with a comma, host zone', lines: ["You've hit your weekly limit · resets Jul 18, 4am"], at: '2026-07-18T04:00:00Z', kind: 'weekly' },
  { name: 'date already past this year: next year', lines: ["You've hit your weekly limit · resets Jul 3 at 9am (UTC)"], at: '2027-07-03T09:00:00Z', kind: 'weekly' },
  { name: 'date in the southern winter', lines: ["You've hit your weekly limit · resets Aug 1 at 9:30pm (Australia/Sydney)"], at: '2026-08-01T11:30:00Z', kind: 'weekly' },
  { name: 'day-first date after a 24-hour time', lines: ["You've hit your weekly limit · resets 16:21 on 19 Jul (Europe/London)"], at: '2026-07-19T15:21:00Z', kind: 'weekly' },
  { name: 'day-first date already past: next year', lines: ["You've hit your weekly limit · resets 16:21 on 19 May"], at: '2027-05-19T16:21:00Z', kind: 'weekly' },
  { name: 'full month name', lines: ["You're out of extra usage · resets September 2 at 8am (America/New_York)"], at: '2026-09-02T12:00:00Z', kind: 'extra_usage' },
  // Codex.
  { name: 'Codex, relative days hours minutes', lines: ["■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 4 days 6 hours 37 minutes.", ...CODEX_FOOTER], at: '2026-07-14T18:37:00Z', kind: 'usage', program: 'codex' },
  { name: 'Codex, relative hours', lines: ["■ You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again in 2 hours."], at: '2026-07-10T14:00:00Z', kind: 'usage' },
  { name: 'Codex, relative minutes', lines: ["■ You've hit your usage limit. Try again in 45 minutes."], at: '2026-07-10T12:45:00Z', kind: 'usage' },
  { name: 'Codex, relative day and hours', lines: ["■ You've hit your usage limit. Upgrade to Pro or try again in 1 day 2 hours."], at: '2026-07-11T14:00:00Z', kind: 'usage' },
  { name: 'Codex, try again at a 12-hour time', lines: ["■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again at 2:51 PM.", ...CODEX_FOOTER], at: '2026-07-10T14:51:00Z', kind: 'usage' },
  { name: 'Codex, try again at, host zone New York', lines: ["■ You've hit your usage limit. Upgrade to Pro or try again at 3:05 PM."], ctx: { hostZone: 'America/New_York' }, at: '2026-07-10T19:05:00Z', kind: 'usage' },
  { name: 'Codex, try again at a morning time already past: tomorrow', lines: ["■ You've hit your usage limit. Upgrade to Pro or try again at 9:15 AM."], at: '2026-07-11T09:15:00Z', kind: 'usage' },
  // Wrapped lines (Codex wraps at word boundaries).
  { name: 'wrapped before "try again"', lines: ["■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or", 'try again at 2:51 PM.', ...CODEX_FOOTER], at: '2026-07-10T14:51:00Z', kind: 'usage' },
  { name: 'wrapped between the time and PM', lines: ["■ You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again at 2:51", 'PM.'], at: '2026-07-10T14:51:00Z', kind: 'usage' },
  { name: 'wrapped inside the duration', lines: ["■ You've hit your usage limit. Upgrade to Pro or try again in 4 days 6", 'hours 37 minutes.'], at: '2026-07-14T18:37:00Z', kind: 'usage' },
  { name: 'wrapped before the zone', lines: ["You've hit your session limit · resets 4:20pm", '(Asia/Tbilisi)'], at: '2026-07-10T12:20:00Z', kind: 'session', zoneSource: 'message' },
];

describe('usage-limit corpus', () => {
  it('has at least 30 real-format messages', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });
  for (const c of CORPUS) {
    it(c.name, () => {
      const limit = findUsageLimit(c.lines, { ...UTC_HOST, ...c.ctx });
      expect(limit).not.toBeNull();
      expect(new Date(limit?.resetsAt ?? 0).toISOString()).toBe(new Date(c.at).toISOString());
      expect(limit?.kind).toBe(c.kind);
      if (c.program !== undefined) expect(limit?.program).toBe(c.program);
      if (c.zoneSource !== undefined) expect(limit?.zoneSource).toBe(c.zoneSource);
    });
  }
});

describe('what is not a limit', () => {
  const NOT: ReadonlyArray<readonly [string, readonly string[], Partial<UsageLimitContext>?]> = [
    ['a limit headline without a reset', ["You've hit your session limit"]],
    ['a zone Intl does not know', ["You've hit your session limit · resets 4pm (Mars/Olympus)"]],
    ['a bare hour with neither minutes nor am/pm', ["You've hit your session limit · resets 3"]],
    ['an hour that does not exist', ["You've hit your session limit · resets 13pm"]],
    ['an answer typed below the message', ["You've hit your session limit · resets 4:20pm (Asia/Tbilisi)", '> continue']],
    ['text typed into the input box', ["You've hit your session limit · resets 4:20pm (Asia/Tbilisi)", '────────', '❯ continue', '────────']],
    ['the agent moved on below the message', ["■ You've hit your usage limit. Try again in 45 minutes.", '• Working (5s • esc to interrupt)']],
    ["Codex's /status lines", ['5h limit: 89% left (resets 18:44)', 'Weekly limit: 42% left (resets 16:21 on 19 May)']],
    ['unknown wording', ['Rate limited, please slow down. Resets 4pm.']],
    ['a message far above the bottom', ["You've hit your session limit · resets 4pm (UTC)", ...Array.from({ length: 12 }, (_, i) => `line ${i}`)]],
  ];
  for (const [name, lines, ctx] of NOT) {
    it(name, () => {
      expect(findUsageLimit(lines, { ...UTC_HOST, ...ctx })).toBeNull();
    });
  }
});
