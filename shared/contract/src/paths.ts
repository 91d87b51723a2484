/** Where the broker keeps state and sockets, derived from the environment the same way
 * in every process (broker, gateway, observer, web). String work only: callers pass the
 * environment and home directory, so this module stays free of Node imports. */

export const SOCKET_ROLES = ['gateway', 'observer', 'web', 'notifier'] as const;
export type SocketRole = (typeof SOCKET_ROLES)[number];

/** Request headers a broker client may send. `actor`: the name the observer or the
 * dashboard's server gives its end user (the gateway's is ignored: its callers' identity
 * comes from `credential` and `principal`). `operatorSession` (web.sock only): the
 * signed-in operator's session token, which the broker validates and derives the acting
 * user from. */
export const BROKER_HEADERS = {
  actor: 'x-terminal-mcp-actor',
  operatorSession: 'x-terminal-mcp-operator-session',
  /** The OAuth access token a gateway request came with (see CREDENTIAL_HEADER in oauth.ts). */
  credential: 'x-terminal-mcp-credential',
  /** gateway.sock only: how the gateway authenticated the request it serves, when not by
   * OAuth: `token` (its static bearer token), `anonymous` (an HTTP client without a
   * credential, on a gateway the operator runs open) or `stdio:<unix user>`. The broker
   * derives the caller's identity from it (and from the credential), never from `actor`. */
  principal: 'x-terminal-mcp-principal',
} as const;

export interface TerminalMcpPaths {
  stateDir: string;
  socketDir: string;
  configPath: string | undefined;
  /** `tmux -L` name; undefined means the user's default server. */
  tmuxSocket: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

function joinPath(...parts: string[]): string {
  return parts.join('/').replace(/\/+/g, '/');
}

export function resolvePaths(env: Env, homeDir: string): TerminalMcpPaths {
  const stateHome = env.XDG_STATE_HOME || joinPath(homeDir, '.local/state');
  const stateDir = env.TERMINAL_MCP_STATE_DIR || joinPath(stateHome, 'terminal-mcp');
  const socketDir =
    env.TERMINAL_MCP_SOCKET_DIR ||
    (env.XDG_RUNTIME_DIR ? joinPath(env.XDG_RUNTIME_DIR, 'terminal-mcp') : joinPath(stateDir, 'run'));
  return {
    stateDir,
    socketDir,
    configPath: env.TERMINAL_MCP_CONFIG || undefined,
    tmuxSocket: env.TERMINAL_MCP_TMUX_SOCKET || undefined,
  };
}

export function socketPathFor(socketDir: string, role: SocketRole): string {
  return joinPath(socketDir, `${role}.sock`);
}
