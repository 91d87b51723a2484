/**
 * Which files hold this host's secrets, reading them, and keeping the fingerprint index
 * current: the operator's `~/.ssh` private keys, `~/.aws/credentials`, `~/.netrc`,
 * `~/.pgpass`, `~/.kube/config`, `~/.docker/config.json`, `~/.config/gh/hosts.yml`,
 * `~/.npmrc`, `~/.vault-token`, `~/.pypirc`, cargo, gcloud, s3cmd, terraform and rclone
 * credentials, the `.env*` and `.envrc` files of each configured project (its root and
 * up to ENV_DEPTH directories below), and the files the
 * operator lists (`known_secrets.files`). The files are stat'ed every
 * `known_secrets.refresh_seconds`; when one changed (or appeared, or went) the index is
 * rebuilt and installed for every read path (policy/known-secrets.ts). File text is held
 * only while it is hashed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { encodedForms, installKnownSecrets, KNOWN_SECRET_WINDOW, secretValuesOf } from '../../policy/known-secrets.js';
import { buildFingerprintIndex, type FingerprintIndex } from './fingerprint-index.js';

const MAX_FILE_BYTES = 1024 * 1024;
const HOME_FILES = [
  '.aws/credentials',
  '.netrc',
  '.pgpass',
  '.kube/config',
  '.docker/config.json',
  '.config/gh/hosts.yml',
  '.npmrc',
  '.git-credentials',
  '.my.cnf',
  '.vault-token',
  '.pypirc',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.config/gcloud/application_default_credentials.json',
  '.s3cfg',
  '.terraform.d/credentials.tfrc.json',
  '.config/rclone/rclone.conf',
];
/** `.env`, `.env.local`, `.env.production.local` (any number of suffixes), `.envrc`. */
const ENV_FILES = /^\.env(?:\.[A-Za-z0-9_-]+)*$|^\.envrc$/;
/** How deep below a project root `.env*` files are looked for, and how many directories
 * at most (a monorepo's packages; never node_modules, .git or other dot directories). */
const ENV_DEPTH = 3;
const ENV_MAX_DIRS = 500;

export interface HostSecretSources {
  /** The operator's home directory (tests point it at a temp dir). */
  home: string;
  /** Roots of configured projects: their `.env*` files are indexed. */
  projectRoots: readonly string[];
  /** Further files the operator lists. */
  files: readonly string[];
}

/** Directories below `dir` that may hold a package's `.env`: not dot directories, not
 * node_modules, not symlinks. */
function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** The files to index now: existing regular files only. */
export function hostSecretFiles(sources: HostSecretSources): string[] {
  const found: string[] = [];
  const listDir = (dir: string, keep: (name: string) => boolean) => {
    try {
      for (const name of readdirSync(dir)) if (keep(name)) found.push(join(dir, name));
    } catch {
      // missing or unreadable: nothing to index there
    }
  };
  listDir(join(sources.home, '.ssh'), (n) => !n.endsWith('.pub') && n !== 'known_hosts' && n !== 'known_hosts.old' && n !== 'config' && n !== 'authorized_keys');
  for (const f of HOME_FILES) found.push(join(sources.home, f));
  for (const root of sources.projectRoots) {
    let dirs = [root];
    let seen = 0;
    for (let depth = 0; depth <= ENV_DEPTH && dirs.length > 0 && seen < ENV_MAX_DIRS; depth += 1) {
      const next: string[] = [];
      for (const dir of dirs) {
        if ((seen += 1) > ENV_MAX_DIRS) break;
        listDir(dir, (n) => ENV_FILES.test(n));
        if (depth < ENV_DEPTH) next.push(...subdirectories(dir));
      }
      dirs = next;
    }
  }
  found.push(...sources.files);
  return found.filter((f) => {
    try {
      const s = statSync(f);
      return s.isFile() && s.size <= MAX_FILE_BYTES;
    } catch {
      return false;
    }
  });
}

/** The indexed forms of one file's secrets, and its values too short for windows. */
function formsOfFile(text: string): { forms: string[]; short: string[]; values: string[] } {
  const values = secretValuesOf(text);
  const forms = values.flatMap(encodedForms);
  // A key file is also printed whole, encoded (`base64 id_rsa`, `xxd -p id_rsa`).
  if (/PRIVATE KEY-----/.test(text)) forms.push(...encodedForms(text).slice(1));
  return { forms, short: values.filter((v) => v.length < KNOWN_SECRET_WINDOW), values };
}

export function indexHostSecrets(files: readonly string[]): FingerprintIndex {
  const forms: string[] = [];
  const short: string[] = [];
  const values: string[] = [];
  for (const f of files) {
    try {
      const found = formsOfFile(readFileSync(f, 'utf8'));
      forms.push(...found.forms);
      short.push(...found.short);
      // Key bodies and their hex are left out: every RSA key starts `MIIE`.
      values.push(...found.values.filter((v) => v.length <= 512 && !v.includes('\n')));
    } catch {
      // vanished or unreadable since it was listed
    }
  }
  return buildFingerprintIndex(forms, short, values);
}

export interface KnownSecretWatcher {
  /** Rebuilds now if anything changed; true when it did. */
  refresh(): boolean;
  readonly index: () => FingerprintIndex | null;
  stop(): void;
}

/** Builds and installs the index, and keeps it current every `refreshSeconds`. */
export function watchHostSecrets(sources: HostSecretSources, refreshSeconds: number, onBuilt?: (index: FingerprintIndex, files: number) => void): KnownSecretWatcher {
  let signature = '';
  let current: FingerprintIndex | null = null;
  const refresh = (): boolean => {
    const files = hostSecretFiles(sources);
    const next = files
      .map((f) => {
        try {
          const s = statSync(f);
          return `${f}\0${s.ino}\0${s.size}\0${s.mtimeMs}`;
        } catch {
          return f;
        }
      })
      .join('\n');
    if (next === signature && current !== null) return false;
    signature = next;
    current = indexHostSecrets(files);
    installKnownSecrets(current);
    onBuilt?.(current, files.length);
    return true;
  };
  refresh();
  const timer = setInterval(refresh, Math.max(1, refreshSeconds) * 1000);
  timer.unref();
  return {
    refresh,
    index: () => current,
    stop() {
      clearInterval(timer);
      installKnownSecrets(null);
    },
  };
}
