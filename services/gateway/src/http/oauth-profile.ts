/**
 * The gateway as an OAuth resource (for ChatGPT connectors): reading, changing Terminal
 * MCP's own state and acting on the host are separate scopes, and the operator approves
 * reading only unless they tick more on the consent page (least privilege: nothing
 * optional is ticked by default). The broker decides every effect itself from the token
 * it verifies (services/broker/src/policy/authority.ts); a refused input attempt is
 * audited and answered there like every other refusal (a BLOCKED receipt from
 * terminal_send_task), so the gateway keeps no second, unaudited check of its own.
 * A token without the input scope is not listed the tools that type (INPUT_TOOL_NAMES,
 * catalogue.ts); a call by a name from a cached list still reaches the broker, which refuses it.
 */
import { GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, INPUT_TOOL_NAMES } from '@terminal-mcp/contract';
import type { OAuthResourceProfile } from '@terminal-mcp/oauth-http';

export const GATEWAY_OAUTH_PROFILE: OAuthResourceProfile = {
  resourceName: 'Terminal MCP gateway',
  consentAsk: 'use your terminals',
  consentLimits: 'The operator\'s policy still decides which sessions can be read or typed into, and every input attempt is audited under this client\'s name and yours.',
  scopes: [
    {
      name: GATEWAY_READ_SCOPE,
      label: 'Read terminals',
      detail: "list tmux sessions, read the ones the operator's policy allows, wait for them and read this client's own input audit.",
    },
    {
      name: GATEWAY_WRITE_SCOPE,
      label: 'Change notes, bindings and watches',
      detail: "keep notes, name sessions (bindings), watch sessions and acknowledge supervisor events. Nothing is typed into a terminal.",
    },
    {
      name: GATEWAY_INPUT_SCOPE,
      label: 'Type into terminals',
      detail: "send text, tasks and keys to sessions the input policy allows, approve queued supervisor prompts and run the operator's configured deploy previews and verifiers (includes the changes above).",
    },
  ],
};

/** The tools that type into a pane or start, stop and resize sessions: the operation
 * table's rows with effect `delivery` or `lifecycle` (shared/contract operations). A token
 * without the input scope is not listed them; the broker refuses and audits a call anyway. */
export { INPUT_TOOL_NAMES };

/** Whether a token with these scopes lacks the input scope this tool needs (it is then not
 * listed the tool; catalogue.ts). */
export function lacksInputScope(toolName: string, scopes: readonly string[]): boolean {
  return INPUT_TOOL_NAMES.has(toolName) && !scopes.includes(GATEWAY_INPUT_SCOPE);
}
