/**
 * The HTTP gateway's bearer token for `npm start`: made at first start and kept in the
 * state directory (`gateway-token.key`, 32 random bytes, 0600, secret-file.ts), so the
 * gateway on loopback is never open to every local user by default (loopback is no
 * boundary on a shared machine). `npm start` hands it to the gateway as
 * TERMINAL_MCP_GATEWAY_TOKEN when the operator set none; `terminal-mcp client-config
 * http` prints it for an HTTP MCP client. A TERMINAL_MCP_GATEWAY_TOKEN the operator sets
 * wins over the file, and TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1 runs the gateway open.
 */
import { loadOrCreateSecret, readSecret } from '../secret-file.js';

export const GATEWAY_TOKEN_FILE_NAME = 'gateway-token.key';
const BYTES = 32;
const WHAT = 'gateway token file';

const tokenOf = (bytes: Buffer) => `tmcp_gw_${bytes.toString('base64url')}`;

/** The token `npm start` gives the gateway, made on first use. */
export function loadOrCreateGatewayToken(stateDir: string): string {
  return tokenOf(loadOrCreateSecret(stateDir, GATEWAY_TOKEN_FILE_NAME, BYTES, WHAT));
}

/** The token npm start made, if it made one. */
export function readGatewayToken(stateDir: string): string | undefined {
  const bytes = readSecret(stateDir, GATEWAY_TOKEN_FILE_NAME, BYTES, WHAT);
  return bytes === undefined ? undefined : tokenOf(bytes);
}

/** How the gateway `npm start` runs in `env` is protected, and with which token:
 * the operator's TERMINAL_MCP_GATEWAY_TOKEN, else (unless they allowed it open) the file's. */
export function gatewayTokenFor(env: NodeJS.ProcessEnv, stateDir: string, create: boolean): { token: string | undefined; source: 'env' | 'file' | 'open' | 'none' } {
  if (env.TERMINAL_MCP_GATEWAY_TOKEN) return { token: env.TERMINAL_MCP_GATEWAY_TOKEN, source: 'env' };
  if (/^(1|true|yes)$/i.test(env.TERMINAL_MCP_GATEWAY_ALLOW_OPEN?.trim() ?? '')) return { token: undefined, source: 'open' };
  const token = create ? loadOrCreateGatewayToken(stateDir) : readGatewayToken(stateDir);
  return token === undefined ? { token, source: 'none' } : { token, source: 'file' };
}
