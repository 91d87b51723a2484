#!/usr/bin/env node
/**
 * `terminal-mcp-web`: the dashboard server. One plain Node HTTP server on loopback that
 *  - refuses to start on a non-loopback address (TERMINAL_MCP_WEB_HOST, default 127.0.0.1;
 *    port TERMINAL_MCP_WEB_PORT, default 8768), or when the name resolved to one;
 *  - checks Host on every request and upgrade (loopback names with our port, or
 *    TERMINAL_MCP_PUBLIC_HOSTS) and the same-origin rule on every mutation, before
 *    SvelteKit sees it;
 *  - decides scheme and client address once (X-Forwarded-* believed only from
 *    TERMINAL_MCP_TRUSTED_PROXY) and hands them to SvelteKit in private headers it always
 *    overwrites;
 *  - serves SvelteKit's adapter-node handler (build/handler.js) and the `/live`
 *    WebSocket (src/lib/server/live-bridge.ts).
 * Exit status 2 when a setting is refused, 1 on other start failures.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NOTE_LIMITS, serviceCommandFlags } from '@terminal-mcp/contract';
import { createHostPolicy, hostForUrl, isAllowedHost, isSameOriginMutation, listenOnLoopback, ownOrigin, type HostPolicy } from '@terminal-mcp/http-guard';
import { boundedStop } from '@terminal-mcp/http-guard/stop-deadline';
import { CLIENT_IP_HEADER, PROTO_HEADER, resolveRequestOrigin } from '../lib/server/forwarded.js';
import { createLiveBridge } from '../lib/server/live-bridge.js';
import { logEvent, webLogSink } from '../lib/server/log.js';
import { sessionTokenFromCookieHeader } from '../lib/server/session-cookie.js';
import { WebConfigError, webSettingsFromEnv } from '../lib/server/settings.js';

const NAME = 'terminal-mcp-web';
type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** One image at the notes ceiling plus the multipart framing and the small fields. */
const UPLOAD_BODY_LIMIT = NOTE_LIMITS.attachmentBytes + 256 * 1024;

function headerPair(req: IncomingMessage): { origin?: string; referer?: string } {
  const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);
  return { origin: one(req.headers.origin), referer: one(req.headers.referer) };
}

const SUMMARY = `The operator dashboard (SvelteKit) on loopback (http://127.0.0.1:8768/), talking to the
broker over web.sock. Environment: TERMINAL_MCP_WEB_HOST, TERMINAL_MCP_WEB_PORT,
TERMINAL_MCP_PUBLIC_HOSTS, TERMINAL_MCP_TRUSTED_PROXY, TERMINAL_MCP_SOCKET_DIR,
TERMINAL_MCP_LOG_LEVEL. See docs/operations.md.`;

function webVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function main(): Promise<void> {
  const flags = serviceCommandFlags(process.argv.slice(2), { name: NAME, version: webVersion(), summary: SUMMARY });
  if (flags) {
    process[flags.stream].write(flags.text);
    process.exit(flags.exitCode);
  }
  let settings;
  try {
    settings = webSettingsFromEnv(process.env);
  } catch (err) {
    if (err instanceof WebConfigError) {
      process.stderr.write(`${NAME}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  // adapter-node reads its settings from the environment under a private prefix (see
  // svelte.config.js); only these are ours to set, the rest must not leak in.
  for (const name of Object.keys(process.env)) if (name.startsWith('TERMINAL_MCP_WEB_KIT_')) delete process.env[name];
  process.env.TERMINAL_MCP_WEB_KIT_PROTOCOL_HEADER = PROTO_HEADER;
  process.env.TERMINAL_MCP_WEB_KIT_ADDRESS_HEADER = CLIENT_IP_HEADER;
  // The notes image upload (multipart) is the largest request; adapter-node's default
  // (512 KiB) would refuse a valid image. Bodies are read only by actions, after sign-in.
  process.env.TERMINAL_MCP_WEB_KIT_BODY_SIZE_LIMIT = String(UPLOAD_BODY_LIMIT);
  const here = dirname(fileURLToPath(import.meta.url));
  const { handler } = (await import(pathToFileURL(join(here, '..', '..', 'build', 'handler.js')).href)) as { handler: NodeHandler };

  let policy: HostPolicy = createHostPolicy({ port: settings.port, bindHost: settings.host, publicHosts: settings.publicHosts });
  const live = createLiveBridge({ policy: () => policy, trustedProxy: settings.trustedProxy });

  const server = createServer((req, res) => {
    if (!isAllowedHost(req.headers.host, policy)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown host');
      return;
    }
    const { protocol, clientIp } = resolveRequestOrigin(req.socket.remoteAddress, req.headers, settings.trustedProxy);
    // Mutations must come from our own origin, whatever their content type (the same rule
    // runs again in hooks.server.ts, and SvelteKit's form check after that).
    if (!SAFE_METHODS.has(req.method ?? '') && !isSameOriginMutation(headerPair(req), ownOrigin(protocol, req.headers.host!))) {
      logEvent('warn', {
        event: 'web.cross_origin_refused',
        method: req.method,
        path: (req.url ?? '').split('?')[0],
        origin: req.headers.origin ?? null,
        // Loopback ports are the same site, so the browser attaches the session cookie:
        // this check, not SameSite, is what stops another local page.
        cookie: sessionTokenFromCookieHeader(req.headers.cookie) !== undefined,
        clientIp,
      });
      res.writeHead(403, { 'content-type': 'text/plain' }).end('cross-origin request refused');
      return;
    }
    req.headers[PROTO_HEADER] = protocol;
    req.headers[CLIENT_IP_HEADER] = clientIp;
    handler(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!live.handleUpgrade(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;

  // `localhost` resolves through the system resolver: this checks what we really bound.
  const { port } = await listenOnLoopback(server, settings.host, settings.port, (message) => new WebConfigError(message)).catch((err: NodeJS.ErrnoException) => {
    if (err instanceof WebConfigError) {
      process.stderr.write(`${NAME}: ${err.message}\n`);
      process.exit(2);
    }
    if (err.code === 'EADDRINUSE') {
      process.stderr.write(`${NAME}: port ${settings.port} is already in use; set TERMINAL_MCP_WEB_PORT\n`);
      process.exit(1);
    }
    throw err;
  });
  // With port 0 the real port is known only now: the Host policy (here and in SvelteKit's
  // hooks, which read it lazily from the environment) must name it.
  policy = createHostPolicy({ port, bindHost: settings.host, publicHosts: settings.publicHosts });
  process.env.TERMINAL_MCP_WEB_PORT = String(port);
  const url = `http://${hostForUrl(settings.host)}:${port}/`;
  process.stdout.write(`${NAME}: dashboard ${url}\n`);
  logEvent('info', { event: 'web.listening', url, trustedProxy: settings.trustedProxy ?? null, publicHosts: settings.publicHosts.map((h) => h.hostname) });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logEvent('info', { event: 'web.stopping', signal });
    // Bounded as every service's stop is (exit 3 at the deadline): a broker that does not
    // answer the live bridge's close, or a connection that never ends, cannot hold it.
    boundedStop({ sink: webLogSink(), overdue: (deadlineMs) => logEvent('error', { event: 'web.stop_overdue', deadlineMs }) }).run(async () => {
      await live.close().catch(() => undefined);
      server.closeAllConnections();
      // Upgraded sockets the bridge already cut may keep close() from calling back: as
      // before, 3 s is enough for what still has to end.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        setTimeout(resolve, 3_000).unref();
      });
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`${NAME}: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
