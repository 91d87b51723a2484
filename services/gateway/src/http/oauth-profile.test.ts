// Guards the gateway's read-only OAuth tokens: the input-tool list names exactly the tools that type into a pane, and with only terminal:read those tools refuse with INPUT_NOT_ALLOWED before any broker call while every other tool is untouched.
import { GATEWAY_INPUT_SCOPE, GATEWAY_READ_SCOPE, readAppErrorData } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { GATEWAY_TOOLS } from '../tools/index.js';
import { GATEWAY_OAUTH_PROFILE, INPUT_TOOL_NAMES, toolsForScopes } from './oauth-profile.js';

describe('input tools under a read-only token', () => {
  it('lists exactly the tools that type (not read-only, named terminal_send_*)', () => {
    const typing = GATEWAY_TOOLS.filter((t) => t.annotations.readOnlyHint === false && t.name.startsWith('terminal_send_')).map((t) => t.name);
    expect([...INPUT_TOOL_NAMES].sort()).toEqual(typing.sort());
  });

  it('refuses them without calling the broker and leaves every other tool as it is', async () => {
    const readOnly = toolsForScopes(GATEWAY_TOOLS, [GATEWAY_READ_SCOPE]);
    expect(readOnly.map((t) => t.name)).toEqual(GATEWAY_TOOLS.map((t) => t.name));
    const broker = new Proxy({}, { get: () => { throw new Error('the broker was called'); } });
    for (const tool of readOnly.filter((t) => INPUT_TOOL_NAMES.has(t.name))) {
      const err = await tool.invoke({}, { broker, signal: AbortSignal.timeout(1_000) } as never).catch((e: unknown) => e);
      expect(readAppErrorData(err)?.code, tool.name).toBe('INPUT_NOT_ALLOWED');
    }
    readOnly.filter((t) => !INPUT_TOOL_NAMES.has(t.name)).forEach((t) => expect(t).toBe(GATEWAY_TOOLS.find((g) => g.name === t.name)));
    expect(toolsForScopes(GATEWAY_TOOLS, [GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE])).toBe(GATEWAY_TOOLS);
  });

  it('always grants reading first', () => {
    expect(GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name)).toEqual([GATEWAY_READ_SCOPE, GATEWAY_INPUT_SCOPE]);
  });
});
