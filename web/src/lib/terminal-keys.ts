/**
 * Take over: what the operator types into the full view's terminal (xterm.js `onData`
 * strings) as steps for the broker's guarded input path. Printable text becomes one text
 * send; each special key becomes a key name from the contract's allowlist; anything else
 * (other control characters, function keys, mouse reports) is refused here with the raw
 * sequence named, so the operator sees why nothing happened. The broker re-checks
 * everything: this mapping grants nothing. Pure.
 */
// Types only: the browser bundle must not pull in the contract's zod schemas. The lists
// themselves (sensitive keys, keys per call) come from the server in the page data.
import type { AllowedKey } from '@terminal-mcp/contract';

export type InputStep =
  | { kind: 'text'; text: string }
  | { kind: 'keys'; keys: AllowedKey[] }
  | { kind: 'refused'; sequence: string };

/** Escape sequences xterm sends (normal and application cursor modes). */
const SEQUENCES: Record<string, AllowedKey> = {
  '\r': 'Enter',
  '\x1b': 'Escape',
  '\t': 'Tab',
  '\x1b[Z': 'BTab',
  '\x1b[A': 'Up',
  '\x1b[B': 'Down',
  '\x1b[C': 'Right',
  '\x1b[D': 'Left',
  '\x1bOA': 'Up',
  '\x1bOB': 'Down',
  '\x1bOC': 'Right',
  '\x1bOD': 'Left',
  '\x1b[H': 'Home',
  '\x1b[F': 'End',
  '\x1bOH': 'Home',
  '\x1bOF': 'End',
  '\x1b[1~': 'Home',
  '\x1b[4~': 'End',
  '\x1b[5~': 'PageUp',
  '\x1b[6~': 'PageDown',
  '\x1b[3~': 'Delete',
  '\x7f': 'BSpace',
  '\b': 'BSpace',
  '\x03': 'C-c',
  '\x04': 'C-d',
  '\x0c': 'C-l',
  '\x15': 'C-u',
};

/** Longest escape sequence first, so `\x1b[A` is not read as Escape then `[A`. */
const ESCAPES = Object.keys(SEQUENCES)
  .filter((s) => s.startsWith('\x1b') && s.length > 1)
  .sort((a, b) => b.length - a.length);
/** CSI / SS3 sequences we do not map (F-keys, modified arrows, mouse): refused whole. */
const OTHER_ESCAPE = /^\x1b(?:\[[0-9;?<>]*[\x40-\x7e]|O[\x40-\x7e])/;


function isPrintable(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0);
}

function visible(seq: string): string {
  return [...seq].map((c) => (isPrintable(c) ? c : `\\x${c.codePointAt(0)!.toString(16).padStart(2, '0')}`)).join('');
}

/** `sensitive`: the contract's SENSITIVE_KEYS (C-c, C-d), which travel alone so each gets
 * its own confirmation. */
export function terminalDataToSteps(data: string, sensitive: ReadonlySet<string>): InputStep[] {
  const isSensitiveKey = (k: string) => sensitive.has(k);
  const steps: InputStep[] = [];
  const pushText = (ch: string) => {
    const last = steps.at(-1);
    if (last?.kind === 'text') last.text += ch;
    else steps.push({ kind: 'text', text: ch });
  };
  const pushKey = (key: AllowedKey) => {
    const last = steps.at(-1);
    // Sensitive keys travel alone: each needs its own confirmation.
    if (last?.kind === 'keys' && !isSensitiveKey(key) && !last.keys.some(isSensitiveKey)) last.keys.push(key);
    else steps.push({ kind: 'keys', keys: [key] });
  };
  let i = 0;
  while (i < data.length) {
    const rest = data.slice(i);
    if (rest.startsWith('\x1b')) {
      const known = ESCAPES.find((s) => rest.startsWith(s));
      if (known) {
        pushKey(SEQUENCES[known]!);
        i += known.length;
        continue;
      }
      const other = OTHER_ESCAPE.exec(rest);
      if (other) {
        steps.push({ kind: 'refused', sequence: visible(other[0]) });
        i += other[0].length;
        continue;
      }
      pushKey('Escape');
      i += 1;
      continue;
    }
    const ch = String.fromCodePoint(rest.codePointAt(0)!);
    const key = SEQUENCES[ch];
    if (key) pushKey(key);
    else if (isPrintable(ch)) pushText(ch);
    else steps.push({ kind: 'refused', sequence: visible(ch) });
    i += ch.length;
  }
  return steps;
}
