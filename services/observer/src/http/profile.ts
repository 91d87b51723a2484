/** The observer as an OAuth resource: one scope, reading. */
import { OBSERVER_SCOPE } from '@terminal-mcp/contract';
import type { OAuthResourceProfile } from '@terminal-mcp/oauth-http';

export const OBSERVER_OAUTH_PROFILE: OAuthResourceProfile = {
  resourceName: 'Terminal MCP observer (read-only)',
  consentAsk: 'read your terminals',
  consentLimits: 'It cannot type into terminals or change anything.',
  scopes: [
    {
      name: OBSERVER_SCOPE,
      label: 'Read-only access',
      detail: "list tmux sessions, read the ones the operator's policy allows, and read the configured project sources.",
    },
  ],
};
