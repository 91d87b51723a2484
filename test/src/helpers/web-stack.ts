/**
 * The dashboard end to end: a private tmux server, a real broker process, the production
 * build of the web app served by the real `terminal-mcp-web` server (web/dist/server/main.js
 * with web/build), and Debian's Chromium driven by playwright-core. Everything binds
 * loopback; the web server picks a free port (TERMINAL_MCP_WEB_PORT=0) and prints its URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { repoPath } from './repo.js';
import { startTmuxServer, type TmuxTestServer } from './tmux-server.js';
import { GENEROUS_WAIT_MS, waitFor } from './wait-for.js';

export { waitFor };

/** Where a dashboard test writes its screenshots: docs/screenshots when refreshing them
 * (TERMINAL_MCP_UPDATE_SCREENSHOTS=1; they are committed), otherwise a temporary directory
 * that `remove()` deletes once the file is done. */
export function screenshotDir(): { readonly path: string; remove(): void } {
  if (process.env.TERMINAL_MCP_UPDATE_SCREENSHOTS === '1') return { path: repoPath('docs/screenshots'), remove: () => undefined };
  const path = mkdtempSync(join(tmpdir(), 'tmcp-shots-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface WebServerProcess {
  readonly baseUrl: string;
  readonly port: number;
  output(): string;
  stop(): Promise<void>;
}

export interface WebStack {
  readonly tmux: TmuxTestServer;
  readonly broker: BrokerProcess;
  readonly web: WebServerProcess;
  readonly baseUrl: string;
  readonly browser: Browser;
  stop(): Promise<void>;
}

export interface StartWebStackOptions {
  config?: Record<string, unknown>;
  /** Extra environment for the web server (e.g. TERMINAL_MCP_TRUSTED_PROXY). */
  webEnv?: NodeJS.ProcessEnv;
  /** Runs on the fresh tmux server before the broker starts: sessions a test needs from the
   * start (tmux 3.3a can crash when a session is created while a control client of another
   * process, such as the broker's, is still identifying: docs/architecture.md section 6). */
  beforeBroker?: (tmux: TmuxTestServer) => Promise<void>;
}

/** Config for dashboard tests: reading and input on; only claude-* is whitelisted for
 * reading and for input, so any other session needs the operator's grants. */
export const WEB_TEST_CONFIG = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['claude-*'],
  input_policy: { allowed_session_patterns: ['claude-*'] },
};

function waitForExit(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startWebServer(env: NodeJS.ProcessEnv, timeoutMs = GENEROUS_WAIT_MS): Promise<WebServerProcess> {
  const main = repoPath('web/dist/server/main.js');
  // A concurrent `npm run build` empties web/build for a while: wait a little before
  // concluding that nothing was built.
  const built = () => existsSync(main) && existsSync(repoPath('web/build/handler.js'));
  for (let waited = 0; !built(); waited += 500) {
    if (waited >= GENEROUS_WAIT_MS) throw new Error('web is not built: run npm run build');
    await new Promise((r) => setTimeout(r, 500));
  }
  const child = spawn(process.execPath, [main], { env: { ...env, TERMINAL_MCP_WEB_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    if (output.length < 256 * 1024) output += chunk.toString('utf8');
  };
  child.stderr!.on('data', append);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`terminal-mcp-web did not start:\n${output}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      append(chunk);
      const m = /dashboard (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`terminal-mcp-web exited (${code}):\n${output}`));
    });
  });
  let stopped: Promise<void> | undefined;
  return {
    baseUrl,
    port: Number(new URL(baseUrl).port),
    output: () => output,
    stop: () =>
      (stopped ??= (async () => {
        child.kill('SIGTERM');
        await waitForExit(child, 30_000);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      })()),
  };
}

/** Chromium whose every context waits as patiently as the tests' own waits: Playwright's
 * default of 30 s per action and navigation failed tests on a busy machine, where the
 * same page answered a little later. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: GENEROUS_WAIT_MS });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(GENEROUS_WAIT_MS);
    context.setDefaultNavigationTimeout(GENEROUS_WAIT_MS);
    return context;
  };
  return browser;
}

export async function startWebStack(options: StartWebStackOptions = {}): Promise<WebStack> {
  const tmux = await startTmuxServer();
  let broker: BrokerProcess | undefined;
  let web: WebServerProcess | undefined;
  try {
    await options.beforeBroker?.(tmux);
    broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: options.config ?? WEB_TEST_CONFIG });
    web = await startWebServer({ ...broker.env, ...options.webEnv });
    const browser = waitsForHydration(await launchChromium(), web.baseUrl);
    const stop = async () => {
      await browser.close().catch(() => {});
      await web!.stop();
      await broker!.stop();
      await tmux.kill();
    };
    return { tmux, broker, web, baseUrl: web.baseUrl, browser, stop };
  } catch (err) {
    await web?.stop();
    await broker?.stop();
    await tmux.kill();
    throw err;
  }
}

/**
 * Makes every page of `browser`'s new contexts wait, after each navigation to a dashboard
 * page (`goto`, `reload`, `waitForURL`), until that page has hydrated. A click or a fill
 * before hydration is lost or undone (an SSR'd button has no handler yet; hydration resets
 * an input's value), so without this a test's next step races the page's scripts: it
 * passed on a busy machine and failed on a quiet clean clone. Non-HTML answers (images,
 * downloads) and pages on other origins (an attacker's page) are not waited for.
 */
function waitsForHydration(browser: Browser, baseUrl: string): Browser {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args);
    const newPage = context.newPage.bind(context);
    context.newPage = async () => hydrationAware(await newPage(), baseUrl);
    return context;
  };
  return browser;
}

function hydrationAware(page: Page, baseUrl: string): Page {
  const settle = async () => {
    if (page.isClosed() || !page.url().startsWith(`${baseUrl}/`)) return;
    const html = await page.evaluate("document.contentType === 'text/html' && document.querySelector('script') !== null").catch(() => false);
    if (html) await waitForHydration(page);
  };
  const goto = page.goto.bind(page);
  page.goto = async (...args: Parameters<Page['goto']>) => {
    const response = await goto(...args);
    if (response && response.ok()) await settle();
    return response;
  };
  const reload = page.reload.bind(page);
  page.reload = async (...args: Parameters<Page['reload']>) => {
    const response = await reload(...args);
    if (response && response.ok()) await settle();
    return response;
  };
  const waitForURL = page.waitForURL.bind(page);
  page.waitForURL = async (...args: Parameters<Page['waitForURL']>) => {
    await waitForURL(...args);
    await settle();
  };
  return page;
}

/** The one-time password the broker wrote on first start. */
export async function bootstrapPassword(stateDir: string, timeoutMs = GENEROUS_WAIT_MS): Promise<string> {
  const file = join(stateDir, 'webauth-bootstrap.txt');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(file)) {
      const m = /^password: (\S+)$/m.exec(readFileSync(file, 'utf8'));
      if (m) return m[1]!;
    }
    if (Date.now() > deadline) throw new Error(`no bootstrap password in ${file}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const OPERATOR_PASSWORD = 'violet-harbour-lantern-93';

/** Fills and submits the login form (the form inside <main>, not the header's sign-out). */
export async function submitLogin(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  if (!page.url().startsWith(`${baseUrl}/login`)) await page.goto(`${baseUrl}/login`);
  await waitForHydration(page);
  await page.locator('main input[name=username]').fill(username);
  await page.locator('main input[name=password]').fill(password);
  await page.locator('main button[type=submit]').click();
}

/** First sign-in: bootstrap password, forced change, lands on the dashboard. */
export async function signInFirstTime(page: Page, stack: WebStack, newPassword = OPERATOR_PASSWORD): Promise<void> {
  const first = await bootstrapPassword(stack.broker.stateDir);
  await submitLogin(page, stack.baseUrl, 'admin', first);
  // Generous: with several browser stacks on a loaded 2-core machine a first page load
  // (and two argon2 hashes) took longer than 30 s.
  await page.waitForURL(`${stack.baseUrl}/change-password`, { timeout: GENEROUS_WAIT_MS });
  await changePassword(page, first, newPassword);
  await page.waitForURL(`${stack.baseUrl}/`, { timeout: GENEROUS_WAIT_MS });
}

/** The signed-in operator's session token, from the browser's login cookie: what the
 * dashboard's server sends the broker with every operator call. */
export async function operatorSessionOf(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'tmcp_session');
  if (!cookie) throw new Error('not signed in: no tmcp_session cookie');
  return cookie.value;
}

/** Waits until the page is interactive (+layout.svelte marks <html> on mount): typed
 * before hydration, a field can be reset by it, and the form then never submits. */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached', timeout: GENEROUS_WAIT_MS });
}

export async function changePassword(page: Page, current: string, next: string, confirm = next): Promise<void> {
  await waitForHydration(page);
  await page.locator('main input[name=current]').fill(current);
  await page.locator('main input[name=new]').fill(next);
  await page.locator('main input[name=confirm]').fill(confirm);
  await page.locator('main button[type=submit]').click();
}


/** The text a dashboard card's terminal draws, read as a person sees it: scrolled into
 * view first. xterm.js pauses drawing while its element is outside the viewport (an
 * IntersectionObserver), and which cards are above the fold depends on the attention
 * order, which depends on each session's status at that moment. */
export async function cardScreenText(page: Page, session: string): Promise<string> {
  const card = page.locator(`article.session[data-session="${session}"]`);
  await card.scrollIntoViewIfNeeded();
  return card.locator('.xterm-rows').innerText();
}
