// Guards the live terminal view (MCP Apps): loaded the way a host does (the ext-apps AppBridge as host, the view in a sandboxed iframe of headless Chromium with a no-network CSP), it shows the tool result, follows the pane live only through terminal_tail/terminal_status calls the host makes with the caller's client, shows secrets redacted, goes blank when the session can no longer be read, and offers no input; clients without Apps support get exactly the text answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { launchChromium } from './helpers/web-stack.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const SESSION = 'agent-live';
const FAKE_KEY = `sk-ant-api03-${'Q7x'.repeat(30)}AA`;
const VIEW_MIME = 'text/html;profile=mcp-app';
/** What hosts give a view by default: inline script and style, nothing from the network. */
const HOST_CSP = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">`;

/** The host page: one sandboxed iframe (scripts, no same origin), its messages relayed to
 * the AppBridge in Node and the bridge's messages posted into it. */
const HOST_PAGE = `<!doctype html><html><body>
<iframe id="view" sandbox="allow-scripts" style="width:900px;height:600px"></iframe>
<script>
  const frame = document.getElementById('view');
  window.addEventListener('message', (e) => { if (e.source === frame.contentWindow) window.toHost(e.data); });
  window.toView = (m) => frame.contentWindow.postMessage(m, '*');
</script></body></html>`;

/** The AppBridge's side of the page's postMessage channel. */
class PageTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(private readonly page: Page) {}
  async start(): Promise<void> {
    await this.page.exposeFunction('toHost', (m: JSONRPCMessage) => this.onmessage?.(m));
  }
  async send(message: JSONRPCMessage): Promise<void> {
    await this.page.evaluate((m) => (window as unknown as { toView(m: unknown): void }).toView(m), message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

describe('the live terminal view in a host', { timeout: 240_000 }, () => {
  let tmux: TmuxTestServer;
  let broker: BrokerProcess;
  let gw: RunningGatewayHttp;
  let client: Client;
  let browser: Browser;
  const calledByView: string[] = [];

  beforeAll(async () => {
    tmux = await startTmuxServer();
    await tmux.newSession(SESSION, 'bash --norc --noprofile', { width: 100, height: 30 });
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { allowed_session_patterns: ['agent-*'], log_level: 'warn' }, readyTimeoutMs: 90_000 });
    gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), allowOpen: true });
    client = new Client({ name: 'apps-host', version: '0.0.0' }, APPS_HOST_OPTIONS);
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await gw?.close();
    await broker?.stop();
    await tmux?.kill();
  });

  const type = async (line: string) => {
    await tmux.tmux(['send-keys', '-t', `=${SESSION}:`, '-l', line]);
    await tmux.tmux(['send-keys', '-t', `=${SESSION}:`, 'Enter']);
  };

  it('declares the view on terminal_tail and terminal_status, and serves it as an MCP Apps resource', async () => {
    const { tools } = await client.listTools();
    const uri = (name: string) => (tools.find((t) => t.name === name)?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
    expect(uri('terminal_tail')).toBe('ui://terminal-mcp/live-terminal.html');
    expect(uri('terminal_status')).toBe(uri('terminal_tail'));
    expect(tools.filter((t) => t._meta).map((t) => t.name).sort()).toEqual(['terminal_status', 'terminal_tail']);
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === uri('terminal_tail'))?.mimeType).toBe(VIEW_MIME);
  });

  it('a client without Apps support gets the same text answer as before (no UI in the result)', async () => {
    await type('echo plain-answer');
    const r = (await client.callTool({ name: 'terminal_tail', arguments: { session: SESSION, lines: 5 } })) as CallToolResult;
    expect(r._meta).toBeUndefined();
    expect(r.content).toHaveLength(1);
    expect((r.content[0] as { text: string }).text).toMatch(/^Session "agent-live" pane %\d+: \d+ line\(s\)(, cursor [A-Za-z0-9_-]+)?\. Untrusted terminal output follows\.\n/);
  });

  it('shows the result, follows the pane live through the host, redacts, goes blank when unreadable, and has no input', async () => {
    const { contents } = await client.readResource({ uri: 'ui://terminal-mcp/live-terminal.html' });
    const html = (contents[0] as { text: string; mimeType: string }).text;
    expect(contents[0]!.mimeType).toBe(VIEW_MIME);
    const page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') console.log(`view console: ${m.text()}`);
    });
    page.on('pageerror', (e) => console.log(`view error: ${e.message}`));
    await page.setContent(HOST_PAGE);

    // The host: the official AppBridge, forwarding the view's tools/call to the caller's own
    // MCP client (each call recorded here, so the test sees every call the view makes).
    const forwarding = new Client({ name: 'apps-host-view', version: '0.0.0' }, APPS_HOST_OPTIONS);
    await forwarding.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
    const bridge = new AppBridge(forwarding, { name: 'test-host', version: '0.0.0' }, { serverTools: {} });
    const initialized = new Promise<void>((resolve) => {
      bridge.oninitialized = () => resolve();
    });
    await bridge.connect(new PageTransport(page));
    const forward = bridge.oncalltool!;
    bridge.oncalltool = (params, extra) => {
      calledByView.push(params.name);
      return forward(params, extra);
    };
    await page.evaluate((doc) => {
      (document.getElementById('view') as HTMLIFrameElement).srcdoc = doc;
    }, html.replace('<head>', `<head>${HOST_CSP}`));
    await Promise.race([initialized, new Promise((_, reject) => setTimeout(() => reject(new Error('the view did not initialize')), 60_000))]);

    // The model's call, as the host shows it with the view.
    await type('echo first-mark');
    await waitFor('first-mark on screen', async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${SESSION}:`])).includes('first-mark\n'));
    const args = { session: SESSION, lines: 20 };
    const result = (await client.callTool({ name: 'terminal_tail', arguments: args })) as CallToolResult;
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
    const view = page.frameLocator('#view');
    await waitFor('the view to show the tool result', async () => ((await view.locator('#screen').textContent()) ?? '').includes('first-mark'), 60_000);
    expect(await view.locator('#name').textContent()).toBe(SESSION);

    // Live: new output appears without another model call, with the secret redacted.
    await type(`echo second-mark key=${FAKE_KEY}`);
    const screen = await waitFor(
      'the view to refresh by itself',
      async () => {
        const t = (await view.locator('#screen').textContent()) ?? '';
        return /second-mark key=\[REDACTED/.test(t) ? t : undefined;
      },
      60_000,
    );
    expect(screen).not.toContain('Q7xQ7xQ7x');
    expect(await view.locator('#state').textContent()).toMatch(/^(IDLE|RUNNING|UNKNOWN|WAITING_INPUT) \(/);
    expect(calledByView.length).toBeGreaterThan(0);
    expect(new Set(calledByView)).toEqual(new Set(['terminal_tail', 'terminal_status']));

    // Read-only: nothing to type into or press.
    expect(await view.locator('input, textarea, button, select, [contenteditable]').count()).toBe(0);

    // The session is renamed out of the readable patterns: the view's next reads are
    // refused by the gate, and what it showed is gone.
    await tmux.tmux(['rename-session', '-t', `=${SESSION}`, 'private-live']);
    await waitFor('the view to go blank with the refusal', async () => (await view.locator('#screen').textContent()) === '' && /SESSION_NOT_FOUND|SESSION_NOT_ALLOWED/.test((await view.locator('#state').textContent()) ?? ''), 60_000);

    await bridge.teardownResource({});
    await forwarding.close();
    await page.close();
  });
});
