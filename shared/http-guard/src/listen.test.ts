// Guards: a service listens only on a loopback address: a non-loopback host is refused before anything is bound, and a loopback name is served on a loopback address.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isLoopbackBindAddress } from './loopback.js';
import { listenOnLoopback } from './listen.js';

class SettingRefused extends Error {}
const refusal = (message: string) => new SettingRefused(message);

describe('listenOnLoopback', () => {
  it.each(['0.0.0.0', '::', '192.0.2.1', 'example.com'])('refuses %s without binding', async (host) => {
    const server = createServer();
    await expect(listenOnLoopback(server, host, 0, refusal)).rejects.toBeInstanceOf(SettingRefused);
    expect(server.listening).toBe(false);
  });

  it.each(['127.0.0.1', 'localhost'])('serves %s on a loopback address', async (host) => {
    const server = createServer();
    try {
      const address = await listenOnLoopback(server, host, 0, refusal);
      expect(isLoopbackBindAddress(address.address)).toBe(true);
      expect(address.port).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('passes a bind failure through (the port is taken)', async () => {
    const first = createServer();
    const second = createServer();
    try {
      const { port } = await listenOnLoopback(first, '127.0.0.1', 0, refusal);
      await expect(listenOnLoopback(second, '127.0.0.1', port, refusal)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((r) => first.close(r));
    }
  });
});
