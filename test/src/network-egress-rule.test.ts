// The broker opens no network connection: the ESLint rule (eslint-rules/no-network-egress.js) fires on fetch, http/https/net/tls/dgram/undici/ws clients in services/broker/src, lets Unix-socket servers, types and other services pass, and the deliberate exceptions in the broker are exactly the pinned ones, each with its reason.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/repo.js';
import { walkSource } from './helpers/walk-source.js';

const RULE = 'terminal-mcp/no-network-egress';
const eslint = new ESLint({ cwd: REPO_ROOT });
const firings = async (path: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
  return result!.messages.filter((m) => m.ruleId === RULE).length;
};

describe('the broker opens no network connection (ESLint)', () => {
  it.each([
    ['services/broker/src/attention/probe.ts', "export const post = (url: string) => fetch(url, { method: 'POST' });\n"],
    ['services/broker/src/effects/notify/probe.ts', "import { request } from 'node:https';\nexport const post = (url: string) => request(url);\n"],
    ['services/broker/src/effects/probe.ts', "import { request } from 'node:http';\nexport const post = () => request({ host: 'example.com', port: 80 });\n"],
    ['services/broker/src/effects/probe.ts', "import http from 'http';\nexport const post = () => http.request({ host: 'example.com' });\n"],
    ['services/broker/src/effects/probe.ts', "import { connect } from 'node:net';\nexport const open = () => connect(443, 'example.com');\n"],
    ['services/broker/src/effects/probe.ts', "import * as net from 'net';\nexport const open = () => net.createConnection({ port: 443 });\n"],
    ['services/broker/src/effects/probe.ts', "import { createSocket } from 'node:dgram';\nexport const udp = () => createSocket('udp4');\n"],
    ['services/broker/src/effects/probe.ts', "import { connect } from 'node:tls';\nexport const open = () => connect(443, 'example.com');\n"],
    ['services/broker/src/effects/probe.ts', "import { request } from 'undici';\nexport const post = (u: string) => request(u);\n"],
    ['services/broker/src/supervisor/probe.ts', "export const load = () => import('undici');\n"],
    ['services/broker/src/effects/probe.ts', "import WebSocket from 'ws';\nexport const open = () => new WebSocket('ws://example.com');\n"],
    ['services/broker/src/live/probe.ts', "export const open = () => new WebSocket('ws://example.com');\n"],
  ])('fires on a network client in %s', async (path, code) => {
    expect(await firings(path, code)).toBeGreaterThan(0);
  });

  it.each([
    ['services/broker/src/rpc/probe.ts', "import { createServer } from 'node:http';\nexport const serve = () => createServer();\n"],
    ['services/broker/src/effects/probe.ts', "import { Socket, type Server } from 'node:net';\nexport const fifo = (fd: number, s?: Server) => (s, new Socket({ fd }));\n"],
    ['services/broker/src/rpc/probe.ts', "import { WebSocketServer, type WebSocket } from 'ws';\nexport const serve = (w?: WebSocket) => (w, new WebSocketServer({ noServer: true }));\n"],
    ['services/broker/src/attention/probe.ts', 'const fetch = (n: number) => n + 1;\nexport const next = () => fetch(1);\n'],
    ['services/notifier/src/probe.ts', "export const post = (url: string) => fetch(url, { method: 'POST' });\n"],
    ['services/broker/src/attention/probe.test.ts', "export const post = (url: string) => fetch(url);\n"],
  ])('lets a Unix-socket server, a local name or a file out of scope pass: %s', async (path, code) => {
    expect(await firings(path, code)).toBe(0);
  });

  // Each exception says why in its disable comment: a Unix socket path, never a host or
  // port, except the loopback deploy-preview probe (the one TCP connection left).
  const EXCEPTIONS = [
    'services/broker/src/effects/deploy/readiness.ts',
    'services/broker/src/effects/launch/broker-probe.ts',
    'services/broker/src/effects/launch/stdio-launch.ts',
    'services/broker/src/effects/socket-files.ts',
    'services/broker/src/effects/tmux/server-socket.ts',
  ];
  it('the exceptions in the broker are exactly the pinned ones, each with a reason', () => {
    const found: string[] = [];
    for (const file of walkSource(join(REPO_ROOT, 'services', 'broker', 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(new RegExp(`eslint-disable(?:-next-line|-line)?\\s+${RULE}(.*)`, 'g'))) {
        expect(m[1], `${relative(REPO_ROOT, file)} gives no reason`).toMatch(/--\s*\S.{20,}/);
        found.push(relative(REPO_ROOT, file));
      }
    }
    expect(found.sort()).toEqual([...EXCEPTIONS].sort());
  });
});
