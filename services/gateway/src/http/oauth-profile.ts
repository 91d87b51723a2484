/**
 * The gateway as an OAuth resource (for ChatGPT connectors): reading and input are
 * separate scopes, and the operator may approve reading only. A token without the input
 * scope gets INPUT_NOT_ALLOWED from every input tool — here, before any broker call, and
 * again in the broker, which verifies the token itself (services/broker/src/oauth/caller.ts).
 */
import { AppError, GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE } from '@terminal-mcp/contract';
import type { OAuthResourceProfile } from '@terminal-mcp/oauth-http';
import type { GatewayTool } from '../tools/index.js';

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

/** The tools that type into a pane (everything that reaches the broker's input.send*). */
export const INPUT_TOOL_NAMES: ReadonlySet<string> = new Set(['terminal_send_task', 'terminal_send_text', 'terminal_send_bound', 'terminal_send_keys']);

function readOnlyRefusal(): AppError {
  return new AppError(
    'INPUT_NOT_ALLOWED',
    'this connection was approved for reading only',
    `The operator approved this OAuth client without the ${GATEWAY_INPUT_SCOPE} scope. To type, reconnect the client and allow input on the consent page.`,
  );
}

/** The tool table for a token's scopes: the same tools (names are a public API that
 * hosted clients cache), with the input tools refusing when the input scope is missing. */
export function toolsForScopes(tools: readonly GatewayTool[], scopes: readonly string[]): readonly GatewayTool[] {
  if (scopes.includes(GATEWAY_INPUT_SCOPE)) return tools;
  return tools.map((tool) =>
    INPUT_TOOL_NAMES.has(tool.name)
      ? {
          ...tool,
          invoke: () => Promise.reject(readOnlyRefusal()),
        }
      : tool,
  );
}
