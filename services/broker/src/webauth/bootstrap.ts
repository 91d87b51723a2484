/**
 * First start: with no operator account at all, create `admin` with a random password
 * that must be changed at first sign-in, and hand that password over in exactly one
 * place, `webauth-bootstrap.txt` in the state directory (0600, created exclusively, never
 * through a symlink). It is never logged or printed. The file is written BEFORE the
 * account exists, so there is never an account whose password nobody can learn; if the
 * file cannot be written, no account is created and the operator uses the CLI.
 */
import type { WebauthEnv } from './env.js';
import { generateBootstrapPassword, hashPassword } from './passwords.js';

export const BOOTSTRAP_USERNAME = 'admin';

export type BootstrapOutcome = 'created' | 'accounts-exist' | 'refused';

export async function ensureBootstrapAccount(env: WebauthEnv): Promise<BootstrapOutcome> {
  void env.dummyHash(); // warm it, so the first unknown-name login is not faster or slower
  if (env.store.countUsers() > 0) return 'accounts-exist';

  const password = generateBootstrapPassword(BOOTSTRAP_USERNAME);
  const passwordHash = await hashPassword(password);
  const content = [
    '# Terminal MCP dashboard: first sign-in.',
    '# Sign in with these, then choose a new password; this file is deleted when you do.',
    `username: ${BOOTSTRAP_USERNAME}`,
    `password: ${password}`,
    '',
  ].join('\n');

  let written: 'written' | 'exists';
  try {
    written = env.secretFile.write(content);
  } catch (err) {
    env.log.error({ event: 'webauth.bootstrap_failed', path: env.secretFile.path, code: (err as NodeJS.ErrnoException).code }, 'could not write the first-start password file; create an account with terminal-mcp-webauth create-user');
    return 'refused';
  }
  if (written === 'exists') {
    env.log.error(
      { event: 'webauth.bootstrap_refused', path: env.secretFile.path },
      'no operator account exists, but something is already at the first-start password path; not writing through it. Remove it and restart, or create an account with terminal-mcp-webauth create-user',
    );
    return 'refused';
  }
  const user = env.store.createFirstUser({ username: BOOTSTRAP_USERNAME, passwordHash, mustChangePassword: true, now: env.now() });
  if (!user) {
    // Someone (the CLI) created an account meanwhile: our password is useless.
    env.secretFile.remove();
    return 'accounts-exist';
  }
  env.log.warn(
    { event: 'webauth.bootstrap_created', username: BOOTSTRAP_USERNAME, userId: user.id, path: env.secretFile.path },
    'created the first operator account; its one-time password is in the file named here',
  );
  return 'created';
}
