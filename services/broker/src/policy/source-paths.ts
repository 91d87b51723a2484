/**
 * Which repo-relative paths a source reader may name. Pure: a function of the path text.
 *
 * A path is normalised ('/'-separated, no empty or `.` segments, no trailing slash) and
 * refused when it is absolute, contains `..` (refused outright, not resolved: with
 * symlinks `a/..` need not be the parent, so no `..` ever reaches the file system or
 * git), names `.git` or anything inside it, contains control characters, or names a
 * secret file (keys, credentials, `.env` files...).
 *
 * This is the lexical half of the decision. The effect that opens a file also resolves
 * the real path, checks it is inside the root's real path, and applies this policy to
 * the resolved path again, so a symlink cannot lead out of the root or to a secret.
 *
 * Secret-file patterns are data: the same table drives this matcher and the git
 * pathspecs that keep secret files out of diffs and searches. Case is folded for ASCII
 * only, exactly as git's `icase` pathspec magic does, so both always agree.
 */

export type SourcePathRefusal = 'empty' | 'control_character' | 'absolute' | 'parent_segment' | 'git_internal' | 'secret_file';

export type SourcePathDecision =
  | { readonly allowed: true; readonly path: string }
  | { readonly allowed: false; readonly reason: SourcePathRefusal };

/** Basenames of files that hold secrets; `*` is the only wildcard and never crosses `/`. */
export const SECRET_BASENAME_GLOBS = [
  '.env',
  '.env.*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.htpasswd',
  '.git-credentials',
  'credentials*',
  'secrets.*',
  '*.tfstate',
  '*.tfstate.*',
  '*.tfvars',
  '.envrc',
  '.vault-token',
  '*service-account*.json',
  '*.asc',
  '*.gpg',
  // Shell and REPL histories hold passwords typed on command lines (`mysql -pX`).
  '*history',
  '*.ppk',
  '*.env',
  '.my.cnf',
  '*.ovpn',
  '.s3cfg',
  '.boto',
  '*.keytab',
  '.yarnrc.yml',
  'kubeconfig*',
] as const;

/** Secret files known by their last path segments (a suffix of whole segments). */
export const SECRET_PATH_SUFFIXES = ['.aws/credentials', '.docker/config.json', '.kube/config', '.config/gh/hosts.yml'] as const;

/** Directories whose whole content is secret. */
export const SECRET_DIRECTORIES = ['.ssh', '.gnupg'] as const;

const GIT_DIR = '.git';

/** ASCII-only lower-casing: the folding git's `icase` pathspec magic applies. Full
 * Unicode folding would disagree with git (the Kelvin sign lower-cases to `k`). */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${body}$`);
}

const SECRET_BASENAME_RES = SECRET_BASENAME_GLOBS.map(globToRegExp);

/** True when a normalised repo-relative path names a secret file (or lies in a secret
 * directory). Case-insensitive for ASCII letters. */
export function isSecretPath(path: string): boolean {
  const segments = asciiLower(path).split('/');
  const base = segments.at(-1) ?? '';
  if (SECRET_BASENAME_RES.some((re) => re.test(base))) return true;
  const whole = segments.join('/');
  if (SECRET_PATH_SUFFIXES.some((suffix) => whole === suffix || whole.endsWith(`/${suffix}`))) return true;
  return segments.slice(0, -1).some((dir) => (SECRET_DIRECTORIES as readonly string[]).includes(dir));
}

/** True when any segment is `.git` (ASCII case-insensitive: on a case-insensitive file
 * system `.GIT` is the same directory). */
export function isGitInternalPath(path: string): boolean {
  return path.split('/').some((segment) => asciiLower(segment) === GIT_DIR);
}

/**
 * Decide whether `input` may be used as a path inside a project. `allowRoot` admits the
 * empty path (also written `.` or `./`) meaning the root itself, for directory listings.
 * On success `path` is the normalised form, which is what must be used from then on.
 */
export function decideSourcePath(input: string, options: { allowRoot?: boolean } = {}): SourcePathDecision {
  if (/[\x00-\x1f\x7f]/.test(input)) return { allowed: false, reason: 'control_character' };
  if (input.startsWith('/')) return { allowed: false, reason: 'absolute' };
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { allowed: false, reason: 'parent_segment' };
  const path = segments.join('/');
  if (path === '') return options.allowRoot ? { allowed: true, path } : { allowed: false, reason: 'empty' };
  if (isGitInternalPath(path)) return { allowed: false, reason: 'git_internal' };
  if (isSecretPath(path)) return { allowed: false, reason: 'secret_file' };
  return { allowed: true, path };
}

/** A caller-safe sentence for a refusal. It names the rule, never anything about the host. */
export function describeSourcePathRefusal(reason: SourcePathRefusal): string {
  switch (reason) {
    case 'empty':
      return 'the path is empty';
    case 'control_character':
      return 'the path contains control characters';
    case 'absolute':
      return 'absolute paths are not allowed: give a path relative to the project root';
    case 'parent_segment':
      return '".." is not allowed in paths';
    case 'git_internal':
      return 'the .git directory is not readable';
    case 'secret_file':
      return 'that file is protected (it may hold secrets)';
  }
}

/**
 * git pathspecs that exclude every secret file and `.git` internals, built from the same
 * tables as `isSecretPath`. `glob` magic keeps `*` inside one segment, `**\/` matches at
 * any depth including the root, `icase` folds ASCII case like `asciiLower`.
 */
export function secretExclusionPathspecs(): string[] {
  const magic = ':(exclude,glob,icase)';
  return [
    ...SECRET_BASENAME_GLOBS.map((g) => `${magic}**/${g}`),
    ...SECRET_PATH_SUFFIXES.map((s) => `${magic}**/${s}`),
    ...SECRET_DIRECTORIES.map((d) => `${magic}**/${d}/**`),
    `${magic}**/${GIT_DIR}/**`,
  ];
}

/** A literal git pathspec for a normalised path: no glob or magic in the path is honoured. */
export function literalPathspec(path: string): string {
  return `:(literal)${path}`;
}
