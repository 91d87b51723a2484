#!/usr/bin/env node
/**
 * `terminal-mcp-webauth`: the operator's account tool for the dashboard and the OAuth
 * login page. Runs as the broker's user on the same state directory (same environment
 * variables), whether or not the broker is running: SQLite WAL serialises the writers.
 *
 *   terminal-mcp-webauth list-users
 *   terminal-mcp-webauth create-user NAME
 *   terminal-mcp-webauth set-password NAME     (ends all of NAME's sessions)
 *
 * Passwords are read from the terminal without echo, or as one line from a piped stdin;
 * never from argv (visible in the process table) and never printed.
 */
import { homedir } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { createLogger } from '../effects/logger.js';
import { createAccount, setAccountPassword, usernameViolation } from '../webauth/accounts.js';
import { webauthEnv, type WebauthEnv } from '../webauth/env.js';
import { BROKER_VERSION } from '../effects/package-info.js';
import { openStore } from '../effects/store/database.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';
import { PromptAbortedError, readNewPassword } from '../effects/launch/password-prompt.js';

const USAGE = `usage: terminal-mcp-webauth <command>
  list-users              list operator accounts
  create-user NAME        create an account (asks for its password)
  set-password NAME       set an account's password and end all its sessions
  --help, --version
Passwords are read from the terminal without echo, or as one line from stdin.
`;

class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function listUsers(env: WebauthEnv): void {
  const users = env.store.listUsers(env.now());
  if (users.length === 0) {
    process.stdout.write('no operator accounts\n');
    return;
  }
  const rows = [
    ['USERNAME', 'MUST_CHANGE_PASSWORD', 'ACTIVE_SESSIONS', 'CREATED', 'PASSWORD_CHANGED'],
    ...users.map((u) => [u.username, u.mustChangePassword ? 'yes' : 'no', String(u.activeSessions), iso(u.createdAt), iso(u.passwordChangedAt)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) process.stdout.write(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
}

function requireName(args: string[]): string {
  if (args.length !== 1) throw new CliError(USAGE.trimEnd(), 2);
  const name = args[0]!;
  const bad = usernameViolation(name);
  if (bad) throw new CliError(bad, 2);
  return name;
}

async function run(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === '--version' || command === '-V') {
    process.stdout.write(`terminal-mcp-webauth ${BROKER_VERSION}\n`);
    return;
  }
  if (command === undefined) throw new CliError(USAGE.trimEnd(), 2);
  if (!['list-users', 'create-user', 'set-password'].includes(command)) throw new CliError(`unknown command ${JSON.stringify(command.slice(0, 40))}\n${USAGE.trimEnd()}`, 2);
  if (command === 'list-users' && args.length > 0) throw new CliError(USAGE.trimEnd(), 2);
  const name = command === 'list-users' ? '' : requireName(args);

  const paths = resolvePaths(process.env, homedir());
  const db = openStore(paths.stateDir, webauthStoreDefinition);
  try {
    const env = webauthEnv({ store: webauthStore(db), stateDir: paths.stateDir, log: createLogger('warn', 'terminal-mcp-webauth') });
    if (command === 'list-users') return listUsers(env);

    const exists = env.store.findUserByName(name) !== undefined;
    if (command === 'create-user' && exists) throw new CliError(`a user named ${name} already exists`);
    if (command === 'set-password' && !exists) throw new CliError(`no user named ${name}`);
    const password = await readNewPassword(process.stdin, process.stderr);
    if (command === 'create-user') {
      const created = await createAccount(env, name, password);
      if (!created.ok) throw new CliError(created.message);
      process.stdout.write(`created user ${name}\n`);
    } else {
      const set = await setAccountPassword(env, name, password);
      if (!set.ok) throw new CliError(set.message);
      process.stdout.write(`password of ${name} set; ended ${set.endedSessions} session(s)\n`);
    }
  } finally {
    db.close();
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof PromptAbortedError) {
      process.stderr.write('terminal-mcp-webauth: aborted\n');
      process.exit(130);
    }
    const code = err instanceof CliError ? err.exitCode : 1;
    const message = (err as Error).message;
    process.stderr.write(message.startsWith('usage:') ? `${message}\n` : `terminal-mcp-webauth: ${message}\n`);
    process.exit(code);
  },
);
