/**
 * Quick answers for a session that waits for input, derived from the bottom of its screen
 * (the status classifier says WAITING_INPUT but not which choices it saw). Pure and
 * conservative: only the last few non-empty lines count, as in the broker's classifier,
 * so prose higher up never offers a button. Every answer is a list of keys from the
 * input allowlist, sent through the guarded, audited input path.
 *
 * - `[y/N]`, `(y/n)`, `[Y/n]`, `(yes/no)`: "y" and "n", each followed by Enter.
 * - numbered menu items `1. Yes`, `❯ 2) No`: the digit; a menu with a selection cursor
 *   (agent CLIs) acts on the digit alone, a plain list (bash `select`) needs Enter.
 * - always: Enter alone.
 */
import type { AllowedKey } from '@terminal-mcp/contract';

export interface QuickAnswer {
  /** What the button says. */
  label: string;
  keys: AllowedKey[];
}

const PROMPT_WINDOW = 3;
const MENU_WINDOW = 12;
const YES_NO = /[[(]\s*(y(?:es)?)\s*\/\s*(n(?:o)?)\s*[\])]/i;
const OPTION = /^[\s│┃|]*([❯›▶>]\s*)?([1-9])[.)]\s+(\S.*?)\s*[│┃|]?\s*$/;
const LABEL_MAX = 40;

function bottomLines(lines: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i -= 1) {
    const line = (lines[i] ?? '').trimEnd();
    if (line.trim() !== '') out.push(line);
  }
  return out.reverse();
}

const short = (s: string) => (s.length > LABEL_MAX ? `${s.slice(0, LABEL_MAX - 1)}…` : s);

export function detectQuickAnswers(lines: readonly string[]): QuickAnswer[] {
  const answers: QuickAnswer[] = [];
  const prompt = bottomLines(lines, PROMPT_WINDOW);
  if (prompt.some((l) => YES_NO.test(l))) {
    answers.push({ label: 'y', keys: ['y', 'Enter'] }, { label: 'n', keys: ['n', 'Enter'] });
  } else {
    // A menu: consecutive numbered options near the bottom, numbered 1, 2, 3...
    const window = bottomLines(lines, MENU_WINDOW);
    const options = new Map<string, { text: string; cursor: boolean }>();
    for (const line of window) {
      const m = OPTION.exec(line);
      if (m) options.set(m[2]!, { text: m[3]!, cursor: Boolean(m[1]) });
    }
    const digits = [...options.keys()].sort();
    const consecutive = digits.length >= 2 && digits.every((d, i) => d === String(i + 1));
    if (consecutive) {
      const cursorMenu = [...options.values()].some((o) => o.cursor);
      for (const d of digits) {
        const keys: AllowedKey[] = cursorMenu ? [d as AllowedKey] : [d as AllowedKey, 'Enter'];
        answers.push({ label: `${d}. ${short(options.get(d)!.text)}`, keys });
      }
    }
  }
  answers.push({ label: 'Enter', keys: ['Enter'] });
  return answers;
}
