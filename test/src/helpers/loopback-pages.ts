/**
 * Two tiny loopback web servers for OAuth browser tests: the client's redirect target (a
 * native app's loopback callback, RFC 8252) and, on another port — another origin — an
 * attacker's page that auto-submits a form to a URL of its choosing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackPages {
  /** `http://127.0.0.1:<port>/callback` */
  redirectUri: string;
  /** A page on the attacker's origin that POSTs `fields` to `action` as soon as it loads. */
  attackUrl(opts: { action: string; fields: Record<string, string>; referrer?: string }): string;
  close(): Promise<void>;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startLoopbackPages(): Promise<LoopbackPages> {
  const callback = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>callback</title><h1>callback received</h1>');
  });
  const attacker = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const fields = JSON.parse(q.get('fields') ?? '{}') as Record<string, string>;
    const inputs = Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html><head><meta name="referrer" content="${escape(q.get('referrer') ?? 'unsafe-url')}"><title>win a prize</title></head>` +
        `<body><form id="f" method="post" action="${escape(q.get('action') ?? '')}">${inputs}</form>` +
        `<script>document.getElementById('f').submit()</script></body></html>`,
    );
  });
  const callbackPort = await listen(callback);
  const attackerPort = await listen(attacker);
  const stop = (s: Server) => new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });
  return {
    redirectUri: `http://127.0.0.1:${callbackPort}/callback`,
    attackUrl: ({ action, fields, referrer }) => {
      const q = new URLSearchParams({ action, fields: JSON.stringify(fields), ...(referrer ? { referrer } : {}) });
      return `http://127.0.0.1:${attackerPort}/?${q}`;
    },
    close: async () => {
      await Promise.all([stop(callback), stop(attacker)]);
    },
  };
}
