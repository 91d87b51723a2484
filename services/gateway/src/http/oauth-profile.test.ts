// Guards the gateway's OAuth scopes as the consent page offers them: reading first (always granted), then changing state, then typing, each optional one a separate choice.
import { GATEWAY_INPUT_SCOPE, GATEWAY_OAUTH_SCOPES, GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { GATEWAY_OAUTH_PROFILE } from './oauth-profile.js';

describe('the gateway OAuth profile', () => {
  it('offers every gateway scope, reading first', () => {
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, GATEWAY_INPUT_SCOPE]);
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([...GATEWAY_OAUTH_SCOPES]);
  });
});
