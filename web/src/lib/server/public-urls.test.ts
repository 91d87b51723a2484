// The connectors page shows only plain http(s) MCP URLs: configured ones first, then those seen in live grants; anything with credentials, a query or another scheme is never shown.
import type { OAuthGrantSummary } from '@terminal-mcp/contract';
import { describe, expect, it } from 'vitest';
import { mcpUrlFrom, publicUrls } from './public-urls.js';

const grant = (resource: string) => ({ resource }) as OAuthGrantSummary;

describe('mcpUrlFrom', () => {
  it.each([
    ['https://observer.example.com', 'https://observer.example.com/mcp'],
    ['https://observer.example.com/', 'https://observer.example.com/mcp'],
    ['https://observer.example.com/mcp', 'https://observer.example.com/mcp'],
    ['https://x.example/base/', 'https://x.example/base/mcp'],
    ['http://127.0.0.1:8767', 'http://127.0.0.1:8767/mcp'],
    ['https://user:pw@observer.example.com', undefined],
    ['https://observer.example.com/?token=1', undefined],
    ['javascript:alert(1)', undefined],
    ['not a url', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s -> %s', (raw, url) => {
    expect(mcpUrlFrom(raw)).toBe(url);
  });
});

describe('publicUrls', () => {
  it('lists the configured URL first and grant resources once each', () => {
    const urls = publicUrls(
      { TERMINAL_MCP_OBSERVER_PUBLIC_URL: 'https://obs.example', TERMINAL_MCP_GATEWAY_PUBLIC_URL: 'https://gw.example/' },
      [grant('https://obs.example/mcp'), grant('https://old.example/mcp'), grant('https://old.example/mcp')],
    );
    expect(urls).toEqual({
      observer: [
        { url: 'https://obs.example/mcp', source: 'configured' },
        { url: 'https://old.example/mcp', source: 'grants' },
      ],
      gateway: [{ url: 'https://gw.example/mcp', source: 'configured' }],
    });
    expect(publicUrls({}, [])).toEqual({ observer: [], gateway: [] });
  });
});
