import { describe, expect, it } from 'vitest';
import { createClientNames, initializeClientName } from './client-names.js';

describe('client names by Mcp-Session-Id', () => {
  it('maps a handed-out id to the name, and forgets old, unknown and malformed ids', () => {
    let t = 0;
    const names = createClientNames({ max: 2, ttlMs: 1000, now: () => t });
    const a = names.remember('codex');
    expect(names.lookup(a)).toBe('codex');
    expect(names.lookup([a])).toBe('codex');
    expect(names.lookup('x'.repeat(22))).toBeUndefined();
    expect(names.lookup('bad id!')).toBeUndefined();
    expect(names.lookup(undefined)).toBeUndefined();
    t = 1001;
    expect(names.lookup(a)).toBeUndefined();
    const b = names.remember('one');
    names.remember('two');
    names.remember('three');
    expect(names.lookup(b)).toBeUndefined(); // bounded: the oldest went first
  });

  it('reads clientInfo.name from an initialize request only', () => {
    expect(initializeClientName({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'claude-code', version: '1' } } })).toBe('claude-code');
    expect(initializeClientName([{ method: 'initialize', params: { clientInfo: { name: 'batch' } } }])).toBe('batch');
    expect(initializeClientName({ method: 'tools/call', params: { clientInfo: { name: 'nope' } } })).toBeUndefined();
    expect(initializeClientName({ method: 'initialize', params: { clientInfo: { name: 3 } } })).toBeUndefined();
    expect(initializeClientName(null)).toBeUndefined();
  });
});
