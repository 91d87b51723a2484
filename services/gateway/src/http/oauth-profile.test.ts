// Guards the gateway's OAuth scopes as the consent page offers them (reading first, always granted; then changing state, then typing) and which tools a token without the input scope is not listed: exactly the tools that type.
import { GATEWAY_INPUT_SCOPE, GATEWAY_OAUTH_SCOPES, GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { GATEWAY_TOOLS } from '../tools/index.js';
import { TOOLSET_TOOLS } from '../tools/toolsets.js';
import { GATEWAY_OAUTH_PROFILE, INPUT_TOOL_NAMES, lacksInputScope } from './oauth-profile.js';

describe('the gateway OAuth profile', () => {
  it('offers every gateway scope, reading first', () => {
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, GATEWAY_INPUT_SCOPE]);
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([...GATEWAY_OAUTH_SCOPES]);
  });

  it('names exactly the tools that type (terminal_send_*, the input toolset\'s other writers, and the two that send through the same path)', () => {
    // terminal_request_human and notify_user sit in the input toolset but type nothing: they
    // reach a person (notes-like writes, terminal:write).
    const reachAPerson = ['terminal_request_human', 'notify_user'];
    const typing = GATEWAY_TOOLS.filter((t) => t.annotations.readOnlyHint === false && (t.name.startsWith('terminal_send_') || TOOLSET_TOOLS.input.includes(t.name)) && !reachAPerson.includes(t.name)).map((t) => t.name);
    expect(typing).toContain('terminal_run');
    expect([...INPUT_TOOL_NAMES].sort()).toEqual([...typing, 'project_dispatch', 'supervisor2_execute_send', ...TOOLSET_TOOLS.lifecycle].sort());
    for (const name of INPUT_TOOL_NAMES) expect(GATEWAY_TOOLS.some((t) => t.name === name), name).toBe(true);
  });

  it('leaves them unlisted for a token without the input scope, and every other tool alone', () => {
    for (const tool of GATEWAY_TOOLS) {
      expect(lacksInputScope(tool.name, [GATEWAY_READ_SCOPE]), tool.name).toBe(INPUT_TOOL_NAMES.has(tool.name));
      expect(lacksInputScope(tool.name, [GATEWAY_READ_SCOPE, GATEWAY_WRITE_SCOPE, GATEWAY_INPUT_SCOPE]), tool.name).toBe(false);
    }
  });
});
