#!/usr/bin/env node
/**
 * `terminal-mcp-observer-admin`: the operator's view of who may use the observer (the
 * read-only MCP server for claude.ai). Runs as the broker's user on the same state
 * directory (same environment variables), whether or not the broker is running: SQLite
 * WAL serialises the writers, and the observer checks every request against oauth.db, so
 * a revocation takes effect at the client's next call.
 *
 *   terminal-mcp-observer-admin status
 *   terminal-mcp-observer-admin revoke CLIENT_ID_OR_USER
 *   terminal-mcp-observer-admin revoke --client CLIENT_ID
 *   terminal-mcp-observer-admin revoke --user USER
 */
import { homedir } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { createLogger } from '../effects/logger.js';
import { listClients, listGrants, revokeClient, revokeUser } from '../oauth/admin.js';
import { oauthEnv, type OAuthEnv } from '../oauth/env.js';
import { BROKER_VERSION } from '../effects/package-info.js';
import { openStore } from '../effects/store/database.js';
import { oauthStore, oauthStoreDefinition } from '../effects/store/oauth-store.js';
import { webauthStore, webauthStoreDefinition } from '../effects/store/webauth-store.js';

const NAME = 'terminal-mcp-observer-admin';
const USAGE = `usage: ${NAME} <command>
  status                       list registered OAuth clients and live grants
  revoke CLIENT_ID_OR_USER     revoke a client (and all its grants) or every grant of a user
  revoke --client CLIENT_ID    revoke a client, when a user has the same name
  revoke --user USER           revoke every grant of a user
  --help, --version
`;

class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const short = (iso: string | null) => (iso === null ? '-' : iso.replace(/\.\d{3}Z$/, 'Z'));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

// Client names come from the internet (open registration): show them as data.
const shown = (text: string) => JSON.stringify(text);

function status(env: OAuthEnv): string {
  const clients = listClients(env);
  const grants = listGrants(env);
  const out: string[] = [];
  out.push(`${clients.length} registered client(s)`);
  if (clients.length > 0) {
    out.push(
      table([
        ['CLIENT_ID', 'NAME', 'REGISTERED', 'REVOKED', 'LIVE_GRANTS', 'REDIRECT_URIS'],
        ...clients.map((c) => [c.clientId, shown(c.clientName), short(c.createdAt), short(c.revokedAt), String(c.activeGrants), c.redirectUris.join(' ')]),
      ]),
    );
  }
  out.push('', `${grants.length} live grant(s)`);
  if (grants.length > 0) {
    out.push(
      table([
        ['GRANT_ID', 'USER', 'CLIENT_ID', 'CLIENT_NAME', 'APPROVED', 'LAST_REFRESH', 'REFRESH_EXPIRES'],
        ...grants.map((g) => [g.grantId, g.username, g.clientId, shown(g.clientName), short(g.createdAt), short(g.lastRefreshedAt), short(g.expiresAt)]),
      ]),
    );
  }
  return `${out.join('\n')}\n`;
}

function revoke(env: OAuthEnv, userExists: (name: string) => boolean, args: string[]): string {
  let kind: 'client' | 'user' | undefined;
  let target: string | undefined;
  if (args.length === 2 && (args[0] === '--client' || args[0] === '--user')) {
    kind = args[0] === '--client' ? 'client' : 'user';
    target = args[1];
  } else if (args.length === 1 && !args[0]!.startsWith('-')) {
    target = args[0];
  }
  if (target === undefined || target === '') throw new CliError(USAGE.trimEnd(), 2);

  const isClient = env.store.findClient(target) !== undefined;
  const isUser = userExists(target) || listGrants(env).some((g) => g.username === target);
  if (kind === undefined) {
    if (isClient && isUser) throw new CliError(`${target} names both a client and a user: say --client or --user`, 2);
    kind = isClient ? 'client' : isUser ? 'user' : undefined;
  }
  if (kind === 'client') {
    if (!isClient) throw new CliError(`no client with id ${target}`);
    const r = revokeClient(env, target, 'cli');
    return `client ${target} revoked${r.revokedClient ? '' : ' (it already was)'}; ${r.revokedGrants} grant(s) revoked\n`;
  }
  if (kind === 'user') {
    const r = revokeUser(env, target, 'cli');
    return `${r.revokedGrants} grant(s) of user ${target} revoked\n`;
  }
  throw new CliError(`no client or user named ${target}`);
}

function run(argv: string[]): string {
  const [command, ...args] = argv;
  if (command === '-h' || command === '--help' || command === 'help') return USAGE;
  if (command === '--version' || command === '-V') return `${NAME} ${BROKER_VERSION}\n`;
  if (command !== 'status' && command !== 'revoke') {
    throw new CliError(command === undefined ? USAGE.trimEnd() : `unknown command ${JSON.stringify(command.slice(0, 40))}\n${USAGE.trimEnd()}`, 2);
  }
  if (command === 'status' && args.length > 0) throw new CliError(USAGE.trimEnd(), 2);

  const paths = resolvePaths(process.env, homedir());
  const db = openStore(paths.stateDir, oauthStoreDefinition);
  const webauthDb = openStore(paths.stateDir, webauthStoreDefinition);
  try {
    // Settings only matter for issuing tokens, which this tool never does.
    const env = oauthEnv({ store: oauthStore(db), config: DEFAULT_CONFIG, log: createLogger('warn', NAME) });
    if (command === 'status') return status(env);
    const users = webauthStore(webauthDb);
    return revoke(env, (name) => users.findUserByName(name) !== undefined, args);
  } finally {
    db.close();
    webauthDb.close();
  }
}

try {
  process.stdout.write(run(process.argv.slice(2)));
  process.exitCode = 0;
} catch (err) {
  const code = err instanceof CliError ? err.exitCode : 1;
  const message = (err as Error).message;
  process.stderr.write(message.startsWith('usage:') ? `${message}\n` : `${NAME}: ${message}\n`);
  process.exitCode = code;
}
