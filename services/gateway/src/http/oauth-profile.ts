/**
 * The gateway as an OAuth resource (for ChatGPT connectors): reading and input are
 * separate scopes, and the operator may approve reading only. A token without the input
 * scope is not listed the input tools, and a call of one answers INPUT_NOT_ALLOWED — here,
 * before any broker call, and again in the broker, which verifies the token itself
 * (services/broker/src/oauth/caller.ts).
 */
import { AppError, GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE } from '@terminal-mcp/contract';
import type { OAuthResourceProfile } from '@terminal-mcp/oauth-http';

export const GATEWAY_OAUTH_PROFILE: OAuthResourceProfile = {
  resourceName: 'Terminal MCP gateway',
  consentAsk: 'use your terminals',
  consentLimits: 'The operator\'s policy still decides which sessions can be read or typed into, and every input attempt is audited under this client\'s name and yours.',
  scopes: [
    {
      name: GATEWAY_READ_SCOPE,
      label: 'Read terminals',
      detail: "list tmux sessions, read the ones the operator's policy allows, wait for them and read the input audit.",
    },
    {
      name: GATEWAY_INPUT_SCOPE,
      label: 'Type into terminals',
      detail: 'send text, tasks and keys to sessions the input policy allows.',
    },
  ],
};

/** The tools that type into a pane: every path to the broker's input.send* (project_dispatch
 * and supervisor2_execute_send type through the same path). They need the input scope. */
export const INPUT_TOOL_NAMES: ReadonlySet<string> = new Set([
  'terminal_send_task',
  'terminal_send_text',
  'terminal_send_bound',
  'terminal_send_keys',
  'project_dispatch',
  'supervisor2_execute_send',
]);

/**
 * Why a token with these scopes may not call this tool, or undefined when it may. A tool it
 * may not call is not listed for it (catalogue.ts) and a call by a name from a cached list is
 * refused here, before any broker call; the broker checks the token's scopes again.
 */
export function scopeRefusal(toolName: string, scopes: readonly string[]): AppError | undefined {
  if (!INPUT_TOOL_NAMES.has(toolName) || scopes.includes(GATEWAY_INPUT_SCOPE)) return undefined;
  return new AppError(
    'INPUT_NOT_ALLOWED',
    'this connection was approved for reading only',
    `The operator approved this OAuth client without the ${GATEWAY_INPUT_SCOPE} scope. To type, reconnect the client and allow input on the consent page.`,
  );
}
