// Guards the gateway's read-only OAuth tokens: the input-tool list names exactly the tools that type into a pane, and with only terminal:read those tools are refused with INPUT_NOT_ALLOWED while every other tool is untouched.
import { GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { GATEWAY_TOOLS } from '../tools/index.js';
import { GATEWAY_OAUTH_PROFILE, INPUT_TOOL_NAMES, scopeRefusal } from './oauth-profile.js';

describe('input tools under a read-only token', () => {
  it('lists exactly the tools that type (terminal_send_*, and the two that send through the same path)', () => {
    const typing = GATEWAY_TOOLS.filter((t) => t.annotations.readOnlyHint === false && t.name.startsWith('terminal_send_')).map((t) => t.name);
    expect([...INPUT_TOOL_NAMES].sort()).toEqual([...typing, 'project_dispatch', 'supervisor2_execute_send'].sort());
    for (const name of INPUT_TOOL_NAMES) expect(GATEWAY_TOOLS.some((t) => t.name === name), name).toBe(true);
  });

  it('refuses them with INPUT_NOT_ALLOWED and leaves every other tool alone', () => {
    for (const tool of GATEWAY_TOOLS) {
      expect(scopeRefusal(tool.name, [GATEWAY_READ_SCOPE])?.code, tool.name).toBe(INPUT_TOOL_NAMES.has(tool.name) ? 'INPUT_NOT_ALLOWED' : undefined);
      expect(scopeRefusal(tool.name, [GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE]), tool.name).toBeUndefined();
    }
  });

  it('always grants reading first', () => {
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE]);
  });
});
