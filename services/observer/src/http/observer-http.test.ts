// Guards that the observer listens on loopback only and refuses settings that would expose it or send tokens in clear text, both in process and as the built terminal-mcp-observer command.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startObserverHttp } from './observer-http.js';
import { ObserverConfigError } from './options.js';

const BIN = fileURLToPath(new URL('../../dist/bin/observer.js', import.meta.url));
const log = pino({ level: 'silent' });

describe('observer listener', () => {
  it.each(['0.0.0.0', '::', '192.0.2.1', 'example.com'])('refuses to listen on %s', async (host) => {
    await expect(startObserverHttp({ host, port: 0, log })).rejects.toBeInstanceOf(ObserverConfigError);
  });

  it('refuses a public URL that is not https (outside loopback) or has a path', async () => {
    await expect(startObserverHttp({ port: 0, log, publicUrl: 'http://observer.example.com' })).rejects.toBeInstanceOf(ObserverConfigError);
    await expect(startObserverHttp({ port: 0, log, publicUrl: 'https://observer.example.com/prefix' })).rejects.toBeInstanceOf(ObserverConfigError);
  });

  it('announces its public URL as issuer and <url>/mcp as the resource', async () => {
    const o = await startObserverHttp({ port: 0, log, publicUrl: 'https://observer.example.com/' });
    try {
      expect(o.urls).toMatchObject({ issuer: 'https://observer.example.com', resource: 'https://observer.example.com/mcp' });
      const local = await startObserverHttp({ port: 0, log });
      expect(local.mcpUrl).toBe(`http://127.0.0.1:${local.port}/mcp`);
      await local.close();
    } finally {
      await o.close();
    }
  });

  // The limit only stops a command that hangs: a start took over 20 s on a loaded machine
  // (two CPU hogs and two test runs), where it takes about a second at rest.
  it('the command exits 2 with a message naming the variable', { timeout: 300_000 }, () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [BIN], { env: { ...process.env, TERMINAL_MCP_OBSERVER_PORT: '0', ...env }, encoding: 'utf8', timeout: 120_000 });
    const wide = run({ TERMINAL_MCP_OBSERVER_HOST: '0.0.0.0' });
    expect(wide.status).toBe(2);
    expect(wide.stderr).toContain('loopback only');
    const clear = run({ TERMINAL_MCP_OBSERVER_PUBLIC_URL: 'http://observer.example.com' });
    expect(clear.status).toBe(2);
    expect(clear.stderr).toContain('TERMINAL_MCP_OBSERVER_PUBLIC_URL');
  });
});
