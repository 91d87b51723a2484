// Guards the lexical source-path rule: no absolute paths, no "..", no .git internals, no secret files; secret pathspecs agree with the matcher.
import { describe, expect, it } from 'vitest';
import {
  decideSourcePath,
  isSecretPath,
  literalPathspec,
  SECRET_BASENAME_GLOBS,
  SECRET_DIRECTORIES,
  SECRET_PATH_SUFFIXES,
  secretExclusionPathspecs,
  type SourcePathRefusal,
} from './source-paths.js';

describe('decideSourcePath', () => {
  it.each<[string, string]>([
    ['README.md', 'README.md'],
    ['src/index.ts', 'src/index.ts'],
    ['./src//index.ts', 'src/index.ts'],
    ['src/', 'src'],
    ['src/./a.ts', 'src/a.ts'],
    ['%2e%2e/%2e%2e/etc/passwd', '%2e%2e/%2e%2e/etc/passwd'], // URL encoding is just a name
    ['..foo/bar', '..foo/bar'],
    ['foo../bar', 'foo../bar'],
    ['.gitignore', '.gitignore'],
    ['.gitattributes', '.gitattributes'],
    ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
    ['docs/.envrc.md', 'docs/.envrc.md'],
    ['environment.ts', 'environment.ts'],
    ['src/keyboard.ts', 'src/keyboard.ts'],
    ['src/secret-santa.ts', 'src/secret-santa.ts'],
    ['src/pem.ts', 'src/pem.ts'],
    ['.ssh-config.md', '.ssh-config.md'],
    ['~/notes.txt', '~/notes.txt'],
    ['src/history.ts', 'src/history.ts'],
    ['docs/environment.md', 'docs/environment.md'],
    ['.config/gh/config.yml', '.config/gh/config.yml'],
    ['kube/config.ts', 'kube/config.ts'],
    ['a\\..\\..\\x', 'a\\..\\..\\x'], // backslash is a file-name character on Linux
  ])('allows %j as %j', (input, normalised) => {
    expect(decideSourcePath(input)).toEqual({ allowed: true, path: normalised });
  });

  it.each<[string, SourcePathRefusal]>([
    ['', 'empty'],
    ['.', 'empty'],
    ['./', 'empty'],
    ['/etc/passwd', 'absolute'],
    ['//etc/passwd', 'absolute'],
    ['../../etc/passwd', 'parent_segment'],
    ['a/../../x', 'parent_segment'],
    ['a/../b', 'parent_segment'],
    ['src/..', 'parent_segment'],
    ['..', 'parent_segment'],
    ['a\0b', 'control_character'],
    ['a\nb', 'control_character'],
    ['.git', 'git_internal'],
    ['.git/config', 'git_internal'],
    ['.git/objects/ab/cdef', 'git_internal'],
    ['sub/.git/HEAD', 'git_internal'],
    ['.GIT/config', 'git_internal'],
    ['.env', 'secret_file'],
    ['.ENV', 'secret_file'],
    ['.env.local', 'secret_file'],
    ['.envrc', 'secret_file'],
    ['infra/prod.tfvars', 'secret_file'],
    ['.vault-token', 'secret_file'],
    ['keys/my-service-account-123.json', 'secret_file'],
    ['backup/private.asc', 'secret_file'],
    ['vault.gpg', 'secret_file'],
    ['app/.env.production', 'secret_file'],
    ['certs/server.pem', 'secret_file'],
    ['certs/SERVER.PEM', 'secret_file'],
    ['tls/server.key', 'secret_file'],
    ['id_rsa', 'secret_file'],
    ['home/.ssh/id_rsa.pub', 'secret_file'],
    ['id_ed25519', 'secret_file'],
    ['keys/id_ecdsa_sk', 'secret_file'],
    ['store.p12', 'secret_file'],
    ['store.pfx', 'secret_file'],
    ['.netrc', 'secret_file'],
    ['.npmrc', 'secret_file'],
    ['.pypirc', 'secret_file'],
    ['credentials', 'secret_file'],
    ['credentials.json', 'secret_file'],
    ['.aws/credentials', 'secret_file'],
    ['.docker/config.json', 'secret_file'],
    ['deploy/.kube/config', 'secret_file'],
    ['vault.kdbx', 'secret_file'],
    ['.git-credentials', 'secret_file'],
    ['secrets.yaml', 'secret_file'],
    ['config/secrets.json', 'secret_file'],
    ['infra/terraform.tfstate', 'secret_file'],
    ['infra/terraform.tfstate.backup', 'secret_file'],
    ['.ssh/known_hosts', 'secret_file'],
    ['x/.gnupg/pubring.kbx', 'secret_file'],
    ['.bash_history', 'secret_file'],
    ['home/u/.zsh_history', 'secret_file'],
    ['.psql_history', 'secret_file'],
    ['.node_repl_history', 'secret_file'],
    ['keys/server.ppk', 'secret_file'],
    ['prod.env', 'secret_file'],
    ['deploy/staging.ENV', 'secret_file'],
    ['.my.cnf', 'secret_file'],
    ['vpn/office.ovpn', 'secret_file'],
    ['.s3cfg', 'secret_file'],
    ['.boto', 'secret_file'],
    ['krb/http.keytab', 'secret_file'],
    ['.config/gh/hosts.yml', 'secret_file'],
    ['home/u/.config/gh/hosts.yml', 'secret_file'],
    ['.yarnrc.yml', 'secret_file'],
    ['.kube/config', 'secret_file'],
    ['kubeconfig', 'secret_file'],
    ['ops/kubeconfig-prod.yaml', 'secret_file'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(decideSourcePath(input)).toEqual({ allowed: false, reason });
  });

  it('admits the root only when asked to', () => {
    expect(decideSourcePath('.', { allowRoot: true })).toEqual({ allowed: true, path: '' });
    expect(decideSourcePath('', { allowRoot: true })).toEqual({ allowed: true, path: '' });
    expect(decideSourcePath('/', { allowRoot: true })).toEqual({ allowed: false, reason: 'absolute' });
  });

  it('folds ASCII case only, like git icase (the Kelvin sign is not a k)', () => {
    expect(isSecretPath('server.\u212Aey')).toBe(false);
    expect(isSecretPath('server.KEY')).toBe(true);
  });
});

describe('secretExclusionPathspecs', () => {
  it('has one exclude pathspec per secret pattern, plus .git', () => {
    const specs = secretExclusionPathspecs();
    expect(specs).toHaveLength(SECRET_BASENAME_GLOBS.length + SECRET_PATH_SUFFIXES.length + SECRET_DIRECTORIES.length + 1);
    for (const spec of specs) expect(spec.startsWith(':(exclude,glob,icase)**/')).toBe(true);
    expect(specs).toContain(':(exclude,glob,icase)**/.env.*');
    expect(specs).toContain(':(exclude,glob,icase)**/.ssh/**');
    expect(specs).toContain(':(exclude,glob,icase)**/.git/**');
  });

  it('uses no glob syntax the matcher does not share (only *)', () => {
    for (const g of [...SECRET_BASENAME_GLOBS, ...SECRET_PATH_SUFFIXES, ...SECRET_DIRECTORIES]) expect(g).not.toMatch(/[?[\]\\]/);
  });

  it('marks a caller path literal', () => {
    expect(literalPathspec('src/*.ts')).toBe(':(literal)src/*.ts');
  });
});
