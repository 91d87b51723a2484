/**
 * `terminal-mcp client-config <client>`: a ready-to-paste snippet for each supported
 * client with this checkout's absolute paths: `node /abs/.../terminal-mcp.js`, never
 * `npx` (a name npx cannot resolve locally is fetched from the public registry, where our
 * names are not ours). The TERMINAL_MCP_* variables that pick the broker (state, socket,
 * config, tmux server) and tmux's TMUX_TMPDIR are carried over when set, so the client
 * reaches the same broker and the broker the same tmux server.
 */
import { homedir } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { checkoutRoot, launcherPath } from './checkout.js';
import { gatewayTokenFor, GATEWAY_TOKEN_FILE_NAME } from './gateway-token-file.js';
import { serviceEndpoint } from './service-endpoints.js';

export const CLIENTS = ['claude-desktop', 'claude-code', 'codex', 'cursor', 'chatgpt', 'http'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** TMUX_TMPDIR is tmux's own: where it keeps its socket directory. A desktop client starts
 * the broker with its own environment, so without it the broker looked in /tmp/tmux-UID and
 * answered "tmux is not running" while the user's server was alive (issue 44). */
const CARRIED_ENV = ['TERMINAL_MCP_CONFIG', 'TERMINAL_MCP_STATE_DIR', 'TERMINAL_MCP_SOCKET_DIR', 'TERMINAL_MCP_TMUX_SOCKET', 'TMUX_TMPDIR', 'TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS', 'TERMINAL_MCP_LOG_LEVEL'];

function carriedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CARRIED_ENV) if (env[name]) out[name] = env[name]!;
  return out;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** TOML basic strings accept JSON's escapes for everything a path contains. */
const tomlString = (s: string) => JSON.stringify(s);

function jsonServers(env: Record<string, string>): string {
  const server: Record<string, unknown> = { command: process.execPath, args: [launcherPath()] };
  if (Object.keys(env).length > 0) server.env = env;
  return JSON.stringify({ mcpServers: { 'terminal-mcp': server } }, null, 2);
}

export function clientConfigSnippet(client: ClientName, processEnv: NodeJS.ProcessEnv): string {
  const env = carriedEnv(processEnv);
  const node = process.execPath;
  const launcher = launcherPath();
  switch (client) {
    case 'claude-desktop':
      return `# Claude Desktop: merge into claude_desktop_config.json
#   macOS: ~/Library/Application Support/Claude/claude_desktop_config.json
#   Linux: ~/.config/Claude/claude_desktop_config.json
# then quit and reopen Claude Desktop.
${jsonServers(env)}
`;
    case 'cursor':
      return `# Cursor: merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)
${jsonServers(env)}
`;
    case 'claude-code': {
      const envFlags = Object.entries(env).map(([k, v]) => `-e ${shellQuote(`${k}=${v}`)} `).join('');
      return `# Claude Code: run once (user scope: every project)
claude mcp add --scope user ${envFlags}terminal-mcp -- ${shellQuote(node)} ${shellQuote(launcher)}
`;
    }
    case 'codex': {
      const envLine = Object.keys(env).length > 0 ? `env = { ${Object.entries(env).map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(', ')} }\n` : '';
      return `# Codex: add to ~/.codex/config.toml
[mcp_servers.terminal-mcp]
command = ${tomlString(node)}
args = [${tomlString(launcher)}]
${envLine}`;
    }
    case 'http': {
      // The gateway npm start runs, with the bearer token it made at first start (or the
      // operator's TERMINAL_MCP_GATEWAY_TOKEN): never open to every local user by default.
      const gateway = serviceEndpoint('gateway', processEnv);
      const paths = resolvePaths(processEnv, homedir());
      const auth = gatewayTokenFor(processEnv, paths.stateDir, false);
      const header = auth.token === undefined ? null : `Authorization: Bearer ${auth.token}`;
      const from =
        auth.source === 'env'
          ? 'TERMINAL_MCP_GATEWAY_TOKEN'
          : auth.source === 'file'
            ? `${paths.stateDir}/${GATEWAY_TOKEN_FILE_NAME}, made by npm start at first start`
            : auth.source === 'open'
              ? 'none: TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1 runs the gateway open to every local user'
              : 'none yet: run npm start once, it makes one';
      return `# Any MCP client over Streamable HTTP -> the gateway npm start runs (loopback).
# URL:    ${gateway.url}
# Header: ${header ?? '(none)'}
# Token:  ${from}
# Claude Code:
claude mcp add --scope user --transport http terminal-mcp-http ${shellQuote(gateway.url)}${header ? ` --header ${shellQuote(header)}` : ''}
`;
    }
    case 'chatgpt': {
      const gateway = serviceEndpoint('gateway', processEnv);
      const publicUrl = processEnv.TERMINAL_MCP_GATEWAY_PUBLIC_URL?.replace(/\/+$/, '');
      const paths = resolvePaths(processEnv, homedir());
      return `# ChatGPT (developer mode connector) -> the gateway over an HTTPS tunnel, OAuth sign-in.
# Step by step: ${checkoutRoot()}/docs/chatgpt-connector.md
1. Run the services: npm start (in ${checkoutRoot()}); the gateway listens on ${gateway.url}
2. Open a tunnel to 127.0.0.1:${gateway.port}, e.g.: cloudflared tunnel --url http://127.0.0.1:${gateway.port}
3. Set TERMINAL_MCP_GATEWAY_PUBLIC_URL to the tunnel's https origin and list its host in
   TERMINAL_MCP_PUBLIC_HOSTS, then restart: terminal-mcp stop && npm start
4. In ChatGPT: Settings -> Connectors -> Create, URL ${publicUrl ? `${publicUrl}/mcp` : 'https://<your tunnel host>/mcp'}, authentication OAuth;
   sign in on the consent page with your dashboard account (first password: ${paths.stateDir}/webauth-bootstrap.txt).
${publicUrl ? '' : '   (TERMINAL_MCP_GATEWAY_PUBLIC_URL is not set in this environment yet.)\n'}`;
    }
  }
}

export function clientConfigCommand(args: string[], env: NodeJS.ProcessEnv): number {
  const [client, ...rest] = args;
  if (!client || rest.length > 0 || !(CLIENTS as readonly string[]).includes(client)) {
    process.stderr.write(`usage: terminal-mcp client-config ${CLIENTS.join(' | ')}\n`);
    return 2;
  }
  process.stdout.write(clientConfigSnippet(client as ClientName, env));
  return 0;
}
