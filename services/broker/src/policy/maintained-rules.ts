/**
 * The maintained secret-detection rules (gitleaks, generated as data by
 * scripts/update-secret-rules.mjs) run the way gitleaks runs them: a rule is tried only
 * on text containing one of its keywords (one Aho-Corasick pass over the text finds
 * every keyword at once, so the 220 rules cost one scan when none applies); the secret is
 * the rule's secret group (else its first non-empty group); a secret below the rule's
 * entropy, or allowed by the rule's or the global allowlists, is not reported. Pure.
 *
 * Each finding is reported as the secret's span and the rule id as the kind
 * (`github-pat` -> `github_pat`), so a marker says which upstream rule fired.
 */
import { GITLEAKS_RULES } from './secret-rules/gitleaks.generated.js';
import { OWN_RULES } from './secret-rules/own-rules.js';
import type { GeneratedAllowlist, GeneratedRuleSet } from './secret-rules/rule-types.js';

export type FindingSink = (start: number, end: number, kind: string) => void;

interface Allowlist {
  readonly target: string;
  readonly regexes: readonly RegExp[];
  /** Whether a (lower-cased) secret contains one of the stopwords: an automaton, since
   * gitleaks' generic rule lists about 1,500 of them. */
  readonly stopword: ((lowerSecret: string) => boolean) | null;
}

interface CompiledRule {
  readonly kind: string;
  readonly pattern: RegExp;
  /** Tried only at each keyword occurrence (compilePattern). */
  readonly anchored: boolean;
  /** A removed lazy prefix (compilePattern): one character of it, and how many at most. */
  readonly prefix: RegExp | null;
  readonly prefixMax: number;
  readonly entropy: number;
  readonly secretGroup: number;
  readonly allowlists: readonly Allowlist[];
  /** Runs on every text (no keywords). */
  readonly always: boolean;
  /** Characters before a keyword occurrence where a match may start. */
  readonly lead: number;
  /** Semi-generic: the keyword is followed, within SEPARATOR_REACH characters, by the
   * assignment separator its pattern requires (`=`, `:`, `>`, `|`, `,`, `?`); an
   * occurrence without one cannot match and costs nothing. */
  readonly needsSeparator: boolean;
}

/** A rule runs only on the text around its keywords: from `lead` characters before an
 * occurrence to the end of the line KEYWORD_TRAIL characters after it. A whole-text run
 * of 220 rules costs too much on the hot path (key bodies and base64 hold short keywords
 * by chance, and a "semi-generic" pattern `[\w.-]{0,50}?(?:keyword)...` takes up to 50
 * steps per character), and a match is a token near its keyword: a semi-generic one
 * holds it within 50 characters of its start, the others start at or shortly before it
 * (`[a-z0-9]{14}\.atlasv1\.`). A match longer than the window (a whole PEM block for
 * gitleaks' private-key rule) is our own rules' job (redact.ts). */
const SEMI_GENERIC = /^\[[^\]]+\]\{0,(\d+)\}\?\(\?:/;
const SEMI_GENERIC_PREFIX = /^(\[[^\]]+\])\{0,(\d+)\}\?(?=\(\?:)/;

/**
 * A semi-generic pattern without its lazy key-name prefix (`[\w.-]{0,50}?`): tried at
 * every position, that prefix costs up to 50 steps per character, and it only decides
 * where the MATCH starts, never the secret. The match start is found afterwards by
 * walking back over the prefix's characters (for allowlists that test the whole match,
 * such as `primary_key`).
 */
function compilePattern(source: string, flags: string, keywords: readonly string[]): { pattern: RegExp; prefix: RegExp | null; prefixMax: number; anchored: boolean } {
  const m = SEMI_GENERIC_PREFIX.exec(source);
  if (m === null) return { pattern: new RegExp(source, `${flags}dg`), prefix: null, prefixMax: 0, anchored: false };
  const rest = source.slice(m[0].length);
  const anchored = startsWithKeyword(rest, keywords);
  return { pattern: new RegExp(rest, `${flags}d${anchored ? 'y' : 'g'}`), prefix: new RegExp(m[1]!, flags), prefixMax: Number(m[2]), anchored };
}

/** The top-level alternatives of a pattern's leading `(?:a|b|...)` group, or null. */
function leadingAlternatives(source: string): string[] | null {
  if (!source.startsWith('(?:')) return null;
  let depth = 0;
  let current = '';
  const alternatives: string[] = [];
  for (let i = 3; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') {
      current += c + source[i + 1];
      i += 1;
      continue;
    }
    if (c === '(') depth += 1;
    if (c === ')') {
      if (depth === 0) return [...alternatives, current];
      depth -= 1;
    }
    if (c === '|' && depth === 0) {
      alternatives.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  return null;
}

/** Every match begins with one of the rule's keywords (each leading alternative starts
 * with one, letters compared without case): then the pattern is tried only AT each
 * keyword occurrence (sticky), one attempt per occurrence. */
function startsWithKeyword(source: string, keywords: readonly string[]): boolean {
  const alternatives = leadingAlternatives(source);
  if (alternatives === null) return false;
  const plain = (a: string) => a.replace(/\(\?-i:|\(\?:/g, '').replace(/\[([a-zA-Z])([a-zA-Z])\]/g, (_, x: string) => x).replace(/[()]/g, '').toLowerCase();
  return alternatives.every((a) => keywords.some((k) => plain(a).startsWith(k)));
}
const SEMI_GENERIC_LEAD = 64;
/** `(?:[ \t\w.-]{0,20})[\s'"]{0,3}` then the separator. */
const SEPARATOR_REACH = 24;
const SEPARATOR = /[=:>|,?]/;
const KEYWORD_LEAD = 160;
const KEYWORD_TRAIL = 400;

function compileAllowlists(lists: readonly GeneratedAllowlist[]): Allowlist[] {
  return lists.map((a) => {
    const words = a.stopwords.length > 0 ? buildKeywordMatcher([a.stopwords]) : null;
    return { target: a.target, regexes: a.regexes.map((r) => new RegExp(r.source, r.flags)), stopword: words === null ? null : (lower: string) => words.rulesIn(lower).size > 0 };
  });
}

/** Keyword automaton (Aho-Corasick over lower-cased ASCII, compiled to a DFA so each
 * character costs one array read): which rules' keywords occur in a text. */
interface KeywordMatcher {
  /** For each rule whose keyword occurs in `text`, each occurrence's start and end
   * (flattened pairs). */
  rulesIn(text: string): Map<number, number[]>;
}

const ALPHABET = 128;

function buildKeywordMatcher(keywordsByRule: readonly (readonly string[])[]): KeywordMatcher {
  const goto: Map<number, number>[] = [new Map()];
  /** Per state: [rule, keyword length] pairs ending there. */
  const out: [number, number][][] = [[]];
  keywordsByRule.forEach((keywords, rule) => {
    for (const word of keywords) {
      let state = 0;
      for (let i = 0; i < word.length; i += 1) {
        const c = word.charCodeAt(i) & (ALPHABET - 1);
        let to = goto[state]!.get(c);
        if (to === undefined) {
          to = goto.length;
          goto.push(new Map());
          out.push([]);
          goto[state]!.set(c, to);
        }
        state = to;
      }
      out[state]!.push([rule, word.length]);
    }
  });
  // Breadth-first: each state's transitions for every character (failure links folded
  // in), and its outputs including those of its failure state.
  const delta = new Int32Array(goto.length * ALPHABET);
  const fail = new Int32Array(goto.length);
  const queue: number[] = [];
  for (let c = 0; c < ALPHABET; c += 1) {
    const to = goto[0]!.get(c) ?? 0;
    delta[c] = to;
    if (to !== 0) queue.push(to);
  }
  for (let q = 0; q < queue.length; q += 1) {
    const state = queue[q]!;
    out[state]!.push(...out[fail[state]!]!);
    for (let c = 0; c < ALPHABET; c += 1) {
      const to = goto[state]!.get(c);
      if (to === undefined) {
        delta[state * ALPHABET + c] = delta[fail[state]! * ALPHABET + c]!;
      } else {
        fail[to] = delta[fail[state]! * ALPHABET + c]!;
        delta[state * ALPHABET + c] = to;
        queue.push(to);
      }
    }
  }
  const hasOutput = Uint8Array.from(out, (o) => (o.length > 0 ? 1 : 0));
  return {
    rulesIn(text) {
      const found = new Map<number, number[]>();
      let state = 0;
      for (let i = 0; i < text.length; i += 1) {
        let c = text.charCodeAt(i);
        if (c >= ALPHABET) {
          state = 0;
          continue;
        }
        if (c >= 0x41 && c <= 0x5a) c |= 0x20;
        state = delta[state * ALPHABET + c]!;
        if (hasOutput[state] !== 1) continue;
        for (const [rule, length] of out[state]!) {
          const at = found.get(rule);
          if (at === undefined) found.set(rule, [i + 1 - length, i + 1]);
          else at.push(i + 1 - length, i + 1);
        }
      }
      return found;
    },
  };
}

/** Shannon entropy in bits per character. */
// eslint-disable-next-line terminal-mcp/no-module-state -- a scratch table shannonEntropy fills and clears within one synchronous call: nothing outlives the call
const entropyCounts = new Uint32Array(65536);
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  // Over UTF-16 code units (secrets are ASCII); the counts are cleared as they are read.
  for (let i = 0; i < s.length; i += 1) { const c = s.charCodeAt(i); entropyCounts[c] = entropyCounts[c]! + 1; }
  let h = 0;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    const n = entropyCounts[c]!;
    if (n === 0) continue;
    entropyCounts[c] = 0;
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function lineAround(text: string, start: number, end: number): string {
  return text.slice(text.lastIndexOf('\n', start - 1) + 1, text.indexOf('\n', end) < 0 ? text.length : text.indexOf('\n', end));
}

function allowed(lists: readonly Allowlist[], secret: string, match: string, text: string, start: number, end: number): boolean {
  for (const a of lists) {
    const target = a.target === 'match' ? match : a.target === 'line' ? lineAround(text, start, end) : secret;
    if (a.regexes.some((r) => r.test(target))) return true;
    if (a.stopword !== null && a.stopword(secret.toLowerCase())) return true;
  }
  return false;
}

function windowEnd(text: string, keywordAt: number): number {
  const nl = text.indexOf('\n', keywordAt + KEYWORD_TRAIL);
  return nl < 0 ? text.length : nl + 1;
}

export interface MaintainedRules {
  readonly source: string;
  readonly version: string;
  readonly commit: string;
  readonly ruleCount: number;
  /** Reports every finding in `text` (visible text: no escape sequences). */
  find(text: string, emit: FindingSink): void;
}

export function compileRuleSet(set: GeneratedRuleSet): MaintainedRules {
  const rules: CompiledRule[] = set.rules.map((r) => ({
    kind: r.id.replace(/-/g, '_'),
    ...compilePattern(r.source, r.flags, r.keywords),
    entropy: r.entropy ?? 0,
    secretGroup: r.secretGroup ?? 0,
    allowlists: compileAllowlists(r.allowlists),
    always: r.keywords.length === 0,
    lead: Number(SEMI_GENERIC.exec(r.source)?.[1] ?? Infinity) < SEMI_GENERIC_LEAD ? SEMI_GENERIC_LEAD : KEYWORD_LEAD,
    needsSeparator: Number(SEMI_GENERIC.exec(r.source)?.[1] ?? Infinity) < SEMI_GENERIC_LEAD && r.source.includes('(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)'),
  }));
  const globalAllow = compileAllowlists(set.allowlists);
  const keywords = buildKeywordMatcher(set.rules.map((r) => r.keywords));
  const always = rules.flatMap((r, i) => (r.always ? [i] : []));

  /** Runs a rule over `text.slice(from, to)` (findings in `text` coordinates); an
   * anchored rule only at `starts` (keyword occurrences, text coordinates). */
  function runRule(rule: CompiledRule, text: string, from: number, to: number, emit: FindingSink, starts?: readonly number[]): void {
    const re = rule.pattern;
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    re.lastIndex = 0;
    let next = 0;
    const exec = (): RegExpExecArray | null => {
      if (starts === undefined) return re.exec(part);
      for (; next < starts.length; ) {
        re.lastIndex = starts[next]! - from;
        next += 2;
        const m = re.exec(part);
        if (m !== null) return m;
      }
      return null;
    };
    for (let m = exec(); m !== null; m = exec()) {
      if (m[0].length === 0) {
        if (starts === undefined) re.lastIndex += 1;
        continue;
      }
      const indices = m.indices!;
      let span: [number, number] | undefined = indices[0];
      if (rule.secretGroup > 0) span = indices[rule.secretGroup];
      else {
        for (let g = 1; g < m.length; g += 1) {
          const s = indices[g];
          if (s !== undefined && s[1] > s[0]) {
            span = s;
            break;
          }
        }
      }
      if (span === undefined) continue;
      const secret = part.slice(span[0], span[1]);
      if (rule.entropy > 0 && shannonEntropy(secret) <= rule.entropy) continue;
      let start = from + m.index;
      const end = start + m[0].length;
      if (rule.prefix !== null) {
        const limit = Math.max(0, start - rule.prefixMax);
        while (start > limit && rule.prefix.test(text[start - 1]!)) start -= 1;
      }
      const match = text.slice(start, end);
      if (allowed(globalAllow, secret, match, text, start, end) || allowed(rule.allowlists, secret, match, text, start, end)) continue;
      emit(from + span[0], from + span[1], rule.kind);
    }
  }

  return {
    source: set.source,
    version: set.version,
    commit: set.commit,
    ruleCount: rules.length,
    find(text, emit) {
      const triggered = keywords.rulesIn(text);
      for (const i of always) triggered.set(i, []);
      for (const [i, at] of triggered) {
        const rule = rules[i]!;
        if (rule.always) {
          runRule(rule, text, 0, text.length, emit);
          continue;
        }
        if (rule.anchored) {
          const pairs: number[] = [];
          for (let o = 0; o < at.length; o += 2) {
            if (!rule.needsSeparator || SEPARATOR.test(text.slice(at[o + 1]!, at[o + 1]! + SEPARATOR_REACH))) pairs.push(at[o]!, at[o + 1]!);
          }
          if (pairs.length > 0) runRule(rule, text, 0, text.length, emit, pairs);
          continue;
        }
        // Windows around the keyword occurrences, merged, each ending after a newline (or
        // at the end of the text) so `$` in a pattern means what it means on the whole text.
        let from = -1;
        let to = -1;
        for (let o = 0; o < at.length; o += 2) {
          const k = at[o]!;
          if (rule.needsSeparator && !SEPARATOR.test(text.slice(at[o + 1]!, at[o + 1]! + SEPARATOR_REACH))) continue;
          const start = Math.max(0, k - rule.lead);
          if (from >= 0 && start <= to) {
            to = windowEnd(text, k);
            continue;
          }
          if (from >= 0) runRule(rule, text, from, to, emit);
          from = start;
          to = windowEnd(text, k);
        }
        if (from >= 0) runRule(rule, text, from, to, emit);
      }
    },
  };
}

/** The gitleaks rules, compiled once per process. */
export const MAINTAINED_RULES: MaintainedRules = compileRuleSet(GITLEAKS_RULES);

/** Our own rules in the same format (secret-rules/own-rules.ts), compiled the same way. */
export const OWN_MAINTAINED_RULES: MaintainedRules = compileRuleSet(OWN_RULES);
