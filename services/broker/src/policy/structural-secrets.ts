/**
 * Secrets found by the shape around them rather than their own (issue 46 A.3): a table
 * cell after a cell naming a secret (`│ DB_PASSWORD │ value │`, markdown `| TOKEN | x |`),
 * a YAML block scalar under a secret key (`password: |` with the value on the lines
 * below), a JWK's private members (`"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`, `"k"`),
 * and a `.pgpass` line behind a label (`cat -n`, `grep -H`). Pure; linear (each pattern
 * is anchored at a border, a line start or a quoted member name, with bounded runs).
 */

export type StructuralSink = (start: number, end: number, kind: string) => void;

/** A name that says its value is a secret (any case, as a word of the name). */
const SECRET_NAME = /(?:^|[_.-])(?:pass|pwd|pw|psk)(?:$|[_.-])|pass(?:word|wd|phrase)|secret|token|api[_.-]?key|private[_.-]?key|access[_.-]?key|auth[_.-]?key|credential|dsn$/i;

/** A cell after a cell holding only a name, between box-drawing or ASCII borders. */
const TABLE_PAIR = /([│|┃])[ \t]*([A-Za-z_][A-Za-z0-9_.-]{0,63})[ \t]*[│|┃][ \t]*([^│|┃\n]{1,512}?)[ \t]*(?=[│|┃\n]|$)/dg;
/** `key: |`, `key: >-`, `- key: |2` and the like: the value is the indented lines below. */
const BLOCK_SCALAR = /^([ \t]*)(?:-[ \t]+)?["']?([A-Za-z_][A-Za-z0-9_.-]{0,63})["']?:[ \t]*[|>][-+0-9]{0,2}[ \t]*$/gm;
const MAX_BLOCK_LINES = 200;
/** A JWK's private (or symmetric) member and its base64url value. */
const JWK_MEMBER = /["'](d|p|q|dp|dq|qi|k)["'][ \t]*:[ \t]*["']([A-Za-z0-9_-]{8,8192})["']/g;
/** `.pgpass` behind a label: `     3\thost:5432:db:user:pw`, `/home/u/.pgpass:host:...`. */
const LABELLED_PGPASS = /^[^\n]{0,256}?[\s:]([^\s:#]{1,255}):(?:\d{1,5}|\*):[^\s:]{1,255}:[^\s:]{1,255}:(\S{1,512})[ \t]*$/gm;

/** Values that stand for a secret or are plainly not one. */
function plausibleValue(value: string): boolean {
  const v = value.trim();
  if (v.length < 6 || /^\d+$/.test(v) || /^(?:\$|<[^>]*>$|\{\{|\*{3,}|x{3,}$|\[REDACTED)/i.test(v)) return false;
  if (/^(?:true|false|null|none|required|optional|string|secret|password|token|yes|no|n\/a|-+)$/i.test(v)) return false;
  return true;
}

export function findStructuralSecrets(visible: string, emit: StructuralSink): void {
  if (/[│|┃]/.test(visible)) {
    TABLE_PAIR.lastIndex = 0;
    for (let m = TABLE_PAIR.exec(visible); m !== null; m = TABLE_PAIR.exec(visible)) {
      const value = m[3]!;
      if (SECRET_NAME.test(m[2]!) && plausibleValue(value) && !/\s{2,}/.test(value.trim())) {
        const [start, end] = m.indices![3]!;
        emit(start, end, 'secret');
      }
      // The value cell may be the next pair's name cell: go on from its border.
      TABLE_PAIR.lastIndex = m.index + 1 + m[0].slice(1).search(/[│|┃]/);
    }
  }

  if (visible.includes('|') || visible.includes('>')) {
    BLOCK_SCALAR.lastIndex = 0;
    for (let m = BLOCK_SCALAR.exec(visible); m !== null; m = BLOCK_SCALAR.exec(visible)) {
      if (!SECRET_NAME.test(m[2]!)) continue;
      const indent = m[1]!.length;
      let at = m.index + m[0].length + 1;
      let first = -1;
      let last = -1;
      for (let n = 0; n < MAX_BLOCK_LINES && at <= visible.length; n += 1) {
        const newline = visible.indexOf('\n', at);
        const lineEnd = newline < 0 ? visible.length : newline;
        const line = visible.slice(at, lineEnd);
        const own = line.length - line.trimStart().length;
        if (line.trim() !== '' && own <= indent) break;
        if (line.trim() !== '') {
          if (first < 0) first = at + own;
          last = lineEnd;
        }
        if (newline < 0) break;
        at = newline + 1;
      }
      if (first >= 0) emit(first, last, 'secret');
    }
  }

  if (visible.includes('"') || visible.includes("'")) {
    const jwk = /["']kty["']/.test(visible);
    JWK_MEMBER.lastIndex = 0;
    for (let m = JWK_MEMBER.exec(visible); m !== null; m = JWK_MEMBER.exec(visible)) {
      const value = m[2]!;
      if (!jwk && value.length < 40) continue;
      const end = m.index + m[0].length - 1;
      emit(end - value.length, end, 'private_key');
    }
  }

  if (visible.includes(':')) {
    LABELLED_PGPASS.lastIndex = 0;
    for (let m = LABELLED_PGPASS.exec(visible); m !== null; m = LABELLED_PGPASS.exec(visible)) {
      const value = m[2]!;
      // Addresses (`fe80:0:...`) and times are hex, digits and colons only.
      if (!plausibleValue(value) || /^[0-9a-f:.]+$/i.test(value)) continue;
      const end = m.index + m[0].trimEnd().length;
      emit(end - value.length, end, 'password');
    }
  }
}
