/**
 * Passwords on the command lines of programs whose password flag is not a `--password`
 * (the generic long-flag rule in redact.ts covers those): each program's own flag, its
 * value shape (`-a X`, `-pX`, `/p:X`, `pass:X`, `user%X`, `user,X`) and positional
 * password arguments (`htpasswd -b FILE USER PW`, `rabbitmqctl add_user USER PW`,
 * `sqlplus USER/PW@DB`, `net use SHARE /user:U PW`). Terminal-specific: a maintained rule
 * set scans files, where these forms are rare; a terminal shows the command being typed.
 * Pure. Each program has a row in the table test (command-line-secrets.test.ts).
 */

export type CommandSink = (start: number, end: number, kind: string) => void;

interface ProgramRule {
  /** Flags whose value is a password. */
  readonly flags?: readonly string[];
  /** Single-letter flags that also take the value attached (`-pSECRET`). */
  readonly attached?: boolean;
  /** Only after this subcommand (`docker login -p`: elsewhere `-p` publishes a port). */
  readonly subcommand?: string;
  /** The value's secret part: after `pass:` (openssl), after `%` (smbclient), after `,` (lftp). */
  readonly valueAfter?: string;
  /** Positional password: which non-flag argument (0-based) after the program/subcommand. */
  readonly positional?: number;
}

const LDAP: ProgramRule = { flags: ['-w'] };
const MONGO: ProgramRule = { flags: ['-p'] };
const MSSQL: ProgramRule = { flags: ['-P'] };
const ARCHIVE: ProgramRule = { flags: ['-p'], attached: true };

const PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  docker: { flags: ['-p'], subcommand: 'login' },
  podman: { flags: ['-p'], subcommand: 'login' },
  nerdctl: { flags: ['-p'], subcommand: 'login' },
  oras: { flags: ['-p'], subcommand: 'login' },
  az: { flags: ['-p'], subcommand: 'login' },
  'redis-cli': { flags: ['-a'] },
  mongosh: MONGO,
  mongo: MONGO,
  mongodump: MONGO,
  mongorestore: MONGO,
  mongoexport: MONGO,
  mongoimport: MONGO,
  openssl: { flags: ['-passin', '-passout', '-pass', '-password', '-k'], valueAfter: 'pass:' },
  keytool: { flags: ['-storepass', '-keypass', '-srcstorepass', '-deststorepass', '-srckeypass', '-destkeypass'] },
  ldapsearch: LDAP,
  ldapadd: LDAP,
  ldapmodify: LDAP,
  ldapdelete: LDAP,
  ldapwhoami: LDAP,
  ldappasswd: LDAP,
  ldapcompare: LDAP,
  ldapmodrdn: LDAP,
  sqlcmd: MSSQL,
  bcp: MSSQL,
  osql: MSSQL,
  isql: MSSQL,
  ipmitool: { flags: ['-P'] },
  zip: { flags: ['-P'] },
  unzip: { flags: ['-P'] },
  '7z': ARCHIVE,
  '7za': ARCHIVE,
  '7zz': ARCHIVE,
  rar: ARCHIVE,
  unrar: ARCHIVE,
  xfreerdp: { flags: ['/p:'], attached: true },
  wlfreerdp: { flags: ['/p:'], attached: true },
  rdesktop: { flags: ['-p'] },
  smbclient: { flags: ['-U', '--user'], valueAfter: '%' },
  rpcclient: { flags: ['-U', '--user'], valueAfter: '%' },
  lftp: { flags: ['-u'], valueAfter: ',' },
  ncftp: { flags: ['-p'] },
  htpasswd: { positional: 2 },
  rabbitmqctl: { positional: 1 },
  sqlplus: { positional: 0, valueAfter: '/' },
  net: { flags: [], subcommand: 'use' },
  wpa_passphrase: { positional: 1 },
  nmcli: { flags: ['password'] },
};

const PROGRAM = new RegExp(`(?<![\\w./-])(${Object.keys(PROGRAMS).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:\\.exe)?(?![\\w.-])`, 'g');
const MAX_COMMAND = 1024;
/** Shell words: quoted or bare. */
const WORD = /"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|[^\s"'|;&]+/g;

interface Word {
  start: number;
  end: number;
  text: string;
}

/** The words of the command starting at `from`, to the end of the line or a separator. */
function commandWords(text: string, from: number): Word[] {
  let to = Math.min(text.length, from + MAX_COMMAND);
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x7c || c === 0x3b || c === 0x26) to = i;
  }
  const words: Word[] = [];
  WORD.lastIndex = 0;
  const part = text.slice(from, to);
  for (let m = WORD.exec(part); m !== null; m = WORD.exec(part)) words.push({ start: from + m.index, end: from + m.index + m[0].length, text: m[0] });
  return words;
}

/** The span of a value word without its quotes, after `after` when the rule says so. */
function valueSpan(word: Word, after: string | undefined, skip = 0): [number, number] | null {
  let start = word.start + skip;
  let end = word.end;
  const q = word.text[skip];
  if (q === '"' || q === "'") {
    start += 1;
    if (word.text.endsWith(q) && word.text.length - skip > 1) end -= 1;
  }
  if (after !== undefined) {
    const inner = word.text.slice(start - word.start, end - word.start);
    const at = inner.indexOf(after);
    // openssl: `pass:X` is the password; `env:VAR`, `file:path`, `fd:3` only name one;
    // `-k X` is the password itself.
    if (after === 'pass:' && at < 0 && /^[a-z]+:/.test(inner)) return null;
    if (at >= 0) start += at + after.length;
    else if (after !== 'pass:') return null;
  }
  const value = word.text.slice(start - word.start, end - word.start);
  if (value === '' || value === '*' || /^\$[A-Za-z_{(]/.test(value)) return null;
  return [start, end];
}

export function findCommandLineSecrets(visible: string, emit: CommandSink): void {
  for (const m of visible.matchAll(PROGRAM)) {
    const rule = PROGRAMS[m[1]!]!;
    let words = commandWords(visible, m.index + m[0].length);
    if (rule.subcommand !== undefined) {
      const at = words.findIndex((w) => w.text === rule.subcommand);
      if (at < 0) continue;
      words = words.slice(at + 1);
    }
    if (m[1] === 'net') {
      // net use \\share /user:DOMAIN\u PASSWORD
      const user = words.findIndex((w) => /^\/user:/i.test(w.text));
      const pw = words.slice(user + 1).find((w) => !w.text.startsWith('/'));
      const span = user >= 0 && pw !== undefined ? valueSpan(pw, undefined) : null;
      if (span !== null) emit(span[0], span[1], 'password');
      continue;
    }
    for (let i = 0; i < words.length; i += 1) {
      const w = words[i]!;
      for (const flag of rule.flags ?? []) {
        let span: [number, number] | null = null;
        if (w.text === flag && i + 1 < words.length && !words[i + 1]!.text.startsWith('-')) span = valueSpan(words[i + 1]!, rule.valueAfter);
        else if (rule.attached === true && w.text.length > flag.length && w.text.startsWith(flag)) span = valueSpan(w, rule.valueAfter, flag.length);
        else if (flag.startsWith('--') && w.text.startsWith(`${flag}=`)) span = valueSpan(w, rule.valueAfter, flag.length + 1);
        if (span !== null) emit(span[0], span[1], 'password');
      }
    }
    if (rule.positional !== undefined) {
      // Positional arguments: words that are not flags (`-b`, `-c`), after a subcommand
      // word for rabbitmqctl (`add_user`, `change_password`).
      let args = words.filter((w) => !w.text.startsWith('-'));
      if (m[1] === 'rabbitmqctl') {
        const sub = args.findIndex((w) => w.text === 'add_user' || w.text === 'change_password');
        if (sub < 0) continue;
        args = args.slice(sub + 1);
      }
      if (m[1] === 'htpasswd') {
        const flags = words.filter((w) => /^-[a-zA-Z]+$/.test(w.text)).map((w) => w.text).join('');
        if (!flags.includes('b')) continue;
        // -n writes to stdout: no file argument.
        if (flags.includes('n')) args = [words[0]!, ...args];
      }
      const w = args[rule.positional];
      if (w === undefined) continue;
      if (rule.valueAfter === '/') {
        // sqlplus user/password@db
        const slash = w.text.indexOf('/');
        if (slash < 0) continue;
        const at = w.text.indexOf('@', slash);
        const start = w.start + slash + 1;
        const end = at < 0 ? w.end : w.start + at;
        if (end > start) emit(start, end, 'password');
        continue;
      }
      const span = valueSpan(w, undefined);
      if (span !== null) emit(span[0], span[1], 'password');
    }
  }
}
