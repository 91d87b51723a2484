/**
 * Translates a Go RE2 pattern (as gitleaks writes its rules) into a JavaScript RegExp
 * source and flags with the same meaning, for Node 20's RegExp, which has no inline
 * flags: `(?i)` (to the end of its group), `(?i:...)`, `(?-i:...)` and `(?s:...)` become
 * explicit character classes (`a` -> `[aA]`, `.` -> `[\s\S]`). Also: POSIX classes
 * (`[[:alnum:]]`), `\z`/`\A`, `(?P<name>`, and a `]` first in a class (literal in RE2, an
 * empty class in JS). A pattern that is case-insensitive throughout (`(?i)` first and no
 * `(?-i`) keeps its letters and gets the `i` flag instead.
 *
 * Anything it does not understand (Unicode classes, `\Q..\E`, flags other than i and s)
 * throws, so the generator fails loudly instead of emitting a rule that means something else.
 */

const POSIX = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  lower: 'a-z',
  upper: 'A-Z',
  space: '\\t\\n\\v\\f\\r ',
  xdigit: '0-9A-Fa-f',
  word: '\\w',
  punct: '!-\\/:-@\\[-`{-~',
};

const isLetter = (c) => /^[A-Za-z]$/.test(c);
const otherCase = (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** Parses flags like `i`, `-i`, `is`, `s-i` into changes of { ci, dotall }. */
function applyFlags(text, state) {
  const next = { ...state };
  let on = true;
  for (const c of text) {
    if (c === '-') on = false;
    else if (c === 'i') next.ci = on;
    else if (c === 's') next.dotall = on;
    else throw new Error(`unsupported inline flag ${c}`);
  }
  return next;
}

/** Reads a character class starting at `i` (the `[`); returns [js, nextIndex]. */
function translateClass(p, i, ci) {
  let j = i + 1;
  let out = '[';
  if (p[j] === '^') {
    out += '^';
    j += 1;
  }
  const items = [];
  let first = true;
  while (j < p.length && (p[j] !== ']' || first)) {
    first = false;
    if (p.startsWith('[:', j)) {
      const end = p.indexOf(':]', j + 2);
      const name = p.slice(j + 2, end);
      if (end < 0 || !(name in POSIX)) throw new Error(`unsupported POSIX class at ${j}`);
      items.push({ raw: POSIX[name] });
      j = end + 2;
      continue;
    }
    let atom;
    if (p[j] === '\\') {
      const e = p[j + 1];
      if (e === 'x') {
        atom = { raw: p.slice(j, j + 4) };
        j += 4;
      } else if (/[pPQE]/.test(e)) {
        throw new Error(`unsupported escape \\${e} in class`);
      } else {
        atom = { raw: `\\${e}`, ch: /[\\\][\-^.]/.test(e) ? e : null };
        j += 2;
      }
    } else {
      const c = p[j];
      atom = { raw: c === ']' || c === '[' ? `\\${c}` : c, ch: c };
      j += 1;
    }
    if (p[j] === '-' && p[j + 1] !== ']' && atom.ch !== undefined && atom.ch !== null) {
      const hi = p[j + 1] === '\\' ? p[j + 2] : p[j + 1];
      const hiRaw = p[j + 1] === '\\' ? `\\${p[j + 2]}` : p[j + 1];
      j += p[j + 1] === '\\' ? 3 : 2;
      items.push({ raw: `${atom.raw}-${hiRaw}`, lo: atom.ch, hi });
      continue;
    }
    items.push(atom);
  }
  if (p[j] !== ']') throw new Error(`unterminated class at ${i}`);
  for (const item of items) {
    out += item.raw;
    if (!ci) continue;
    if (item.lo !== undefined && isLetter(item.lo) && isLetter(item.hi) && (item.lo === item.lo.toLowerCase()) === (item.hi === item.hi.toLowerCase())) {
      out += `${otherCase(item.lo)}-${otherCase(item.hi)}`;
    } else if (item.lo === undefined && item.ch && isLetter(item.ch)) {
      out += otherCase(item.ch);
    }
  }
  return [`${out}]`, j + 1];
}

/**
 * @param {string} pattern an RE2 pattern
 * @returns {{ source: string, flags: string }}
 */
export function re2ToJs(pattern) {
  let p = pattern;
  let flags = '';
  // Case-insensitive throughout: the `i` flag, letters as they are.
  if (p.startsWith('(?i)') && !p.includes('(?-i')) {
    p = p.slice(4).replaceAll('(?i)', '').replaceAll('(?i:', '(?:');
    flags = 'i';
  }
  const stack = [];
  let state = { ci: false, dotall: false };
  let out = '';
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const e = p[i + 1];
      if (e === 'z') out += '(?![\\s\\S])';
      else if (e === 'A') out += '^';
      else if (e === 'x') {
        out += p.slice(i, i + 4);
        i += 4;
        continue;
      } else if (/[pPQEC]/.test(e)) throw new Error(`unsupported escape \\${e} at ${i}`);
      else if (state.ci && isLetter(e) && !/[dDwWsSbBtnrfv]/.test(e)) throw new Error(`unsupported escape \\${e} at ${i}`);
      else out += `\\${e}`;
      i += 2;
      continue;
    }
    if (c === '[') {
      const [js, next] = translateClass(p, i, state.ci);
      out += js;
      i = next;
      continue;
    }
    if (c === '(') {
      if (p[i + 1] === '?') {
        const m = /^\(\?([a-zA-Z-]*)([:)])/.exec(p.slice(i));
        const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(p.slice(i));
        if (named !== null) {
          stack.push(state);
          out += `(?<${named[1]}>`;
          i += named[0].length;
          continue;
        }
        if (m === null) throw new Error(`unsupported group at ${i}: ${p.slice(i, i + 8)}`);
        if (m[2] === ')') {
          // `(?i)`: to the end of the enclosing group.
          state = applyFlags(m[1], state);
          i += m[0].length;
          continue;
        }
        stack.push(state);
        state = applyFlags(m[1], state);
        out += '(?:';
        i += m[0].length;
        continue;
      }
      stack.push(state);
      out += '(';
      i += 1;
      continue;
    }
    if (c === ')') {
      state = stack.pop() ?? state;
      out += ')';
      i += 1;
      continue;
    }
    if (c === '.') {
      out += state.dotall ? '[\\s\\S]' : '[^\\n]';
      i += 1;
      continue;
    }
    if (state.ci && isLetter(c)) {
      // Inside a counted repetition `{n,m}` there are no letters, so this is a literal.
      out += `[${c}${otherCase(c)}]`;
      i += 1;
      continue;
    }
    out += c;
    i += 1;
  }
  // Must compile, with indices for capture-group positions.
  new RegExp(out, `${flags}dg`);
  return { source: out, flags };
}
