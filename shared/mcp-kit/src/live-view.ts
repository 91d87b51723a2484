/**
 * A live terminal inside the chat: an MCP Apps view (`ui://`, @modelcontextprotocol/ext-apps)
 * that terminal_tail and terminal_status declare. A host that supports MCP Apps (ChatGPT,
 * claude.ai) renders it in a sandboxed iframe next to the tool call; every other client
 * ignores the `_meta` and reads the same text answer as before.
 *
 * Security: the view is static HTML; it holds no data and has no channel of its own. It
 * shows what the tool call returned, then asks the host to call terminal_tail and
 * terminal_status again (tools/call through the host, with the caller's own credentials),
 * so every frame passes the same read gate, redaction and read audit as a model's call, and
 * a session the caller may no longer read goes blank with the refusal. It is read-only: no
 * control sends input. Pane text is shown with textContent, never parsed as HTML.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { ServedResource } from './doc-resources.js';

export const LIVE_VIEW_URI = 'ui://terminal-mcp/live-terminal.html';

/** What terminal_tail and terminal_status publish in tools/list (both keys: the current one
 * and the one older hosts read, as the ext-apps server helpers do). */
export const LIVE_VIEW_TOOL_META = { ui: { resourceUri: LIVE_VIEW_URI }, [RESOURCE_URI_META_KEY]: LIVE_VIEW_URI } as const;

/** The view's Content Security Policy for the host (MCP Apps `_meta.ui.csp`): no network
 * origin, no resource origin, no nested frame, no other base: the view reaches nothing but
 * the host's own tools/call channel (issue 45 LOW: it declared none). */
export const LIVE_VIEW_UI_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true },
} as const;

/** The view as a resource (resources/list, resources/read) of the gateway and the observer. */
export const LIVE_VIEW: ServedResource = {
  resource: {
    uri: LIVE_VIEW_URI,
    name: 'live-terminal.html',
    title: 'Live terminal',
    description: 'A read-only, redacted live view of a session, refreshed through terminal_tail',
    mimeType: RESOURCE_MIME_TYPE,
    _meta: LIVE_VIEW_UI_META,
  },
  read: () => liveViewHtml(),
  contentMeta: LIVE_VIEW_UI_META,
};

/** Seconds between refreshes while the view is visible; refusals and errors back off. */
const POLL_MS = 2_000;
const LINES = 60;

/**
 * The view's own script. It runs in the host's sandbox after the ext-apps App bundle (see
 * appBundle below), which leaves its exports in `__extApps`; its own names live in a block,
 * apart from the bundle's top-level (minified) ones.
 */
const VIEW_SCRIPT = `{
const { App } = __extApps;
const el = (id) => document.getElementById(id);
const app = new App({ name: 'terminal-mcp-live-view', version: '1.0.0' }, {});
let session, timer, stopped = false, failures = 0;
const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\\n');
function showTail(r) {
  if (r.isError) { el('screen').textContent = ''; el('state').textContent = textOf(r).split(' Hint:')[0]; return false; }
  const s = r.structuredContent || {};
  // A host that hands the view no structuredContent (Claude Desktop strips it): the text
  // answer is the head line and then the pane text.
  el('screen').textContent = typeof s.text === 'string' ? s.text : textOf(r).replace(/^[^\\n]*\\n/, '');
  el('lines').textContent = (s.line_count ?? '?') + ' lines' + (s.redactions ? ', ' + s.redactions + ' redacted' : '');
  return true;
}
function showStatus(r) {
  if (r.isError) { el('state').textContent = textOf(r).split(' Hint:')[0]; return false; }
  const s = r.structuredContent || {};
  el('state').textContent = s.status ? s.status + ' (' + s.reason + ')' : textOf(r);
  return true;
}
function adopt(s) { if (typeof s === 'string' && s) { session = s; el('name').textContent = s; } }
function schedule() {
  clearTimeout(timer);
  if (!stopped && session) timer = setTimeout(tick, Math.min(${POLL_MS} * 2 ** failures, 30000));
}
async function tick() {
  if (stopped || !session) return;
  if (document.visibilityState === 'hidden') return schedule();
  try {
    const [tail, status] = await Promise.all([
      app.callServerTool({ name: 'terminal_tail', arguments: { session, lines: ${LINES} } }),
      app.callServerTool({ name: 'terminal_status', arguments: { session } }),
    ]);
    const ok = showTail(tail) && showStatus(status);
    failures = ok ? 0 : Math.min(failures + 1, 4);
    el('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    failures = Math.min(failures + 1, 4);
    el('state').textContent = 'the host could not reach the server';
  }
  schedule();
}
app.ontoolinput = (p) => adopt(p.arguments && p.arguments.session);
app.ontoolresult = (r) => {
  const s = r.structuredContent || {};
  adopt(session || s.session);
  if (typeof s.text === 'string') showTail(r); else showStatus(r);
  if (r.isError) el('screen').textContent = '';
  schedule();
};
app.onteardown = async () => { stopped = true; clearTimeout(timer); return {}; };
await app.connect();
}`;

const STYLE = `
:root { color-scheme: light dark; }
body { margin: 0; font: 13px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; }
header { display: flex; gap: 1em; flex-wrap: wrap; padding: 6px 10px; border-bottom: 1px solid #8884; }
#name { font-weight: bold; }
#state, #lines, #updated { opacity: .75; }
pre { margin: 0; padding: 8px 10px; max-height: 420px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; background: #111; color: #ddd; }
footer { padding: 4px 10px; opacity: .6; font-size: 11px; }
`;

// eslint-disable-next-line terminal-mcp/no-module-state -- the view's script read once from this package's own build output: a read-only asset, the same for every caller
let bundle: string | undefined;

/**
 * The ext-apps View runtime (App, PostMessageTransport) as one inline script: hosts render
 * the view with a CSP that allows inline scripts and nothing fetched from elsewhere. The
 * package's self-contained build ends in one `export{local as Name,...}` statement; that is
 * turned into `const __extApps = {Name: local, ...}` so the view script in the same module
 * can use it. A package update that changes this shape fails here, at the first read (and
 * in test/src/live-view-browser.test.ts), never silently in a host.
 */
function appBundle(): string {
  if (bundle !== undefined) return bundle;
  const path = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const source = readFileSync(path, 'utf8');
  const tail = /export\s*\{([^{}]*)\}\s*;?\s*$/.exec(source);
  if (!tail) throw new Error('@modelcontextprotocol/ext-apps app-with-deps: unexpected bundle shape (no trailing export list)');
  const pairs = tail[1]!.split(',').map((part) => {
    const [local, name] = part.trim().split(/\s+as\s+/);
    return `${JSON.stringify(name ?? local)}:${local}`;
  });
  // A `</script` inside the bundle would end the inline script early.
  bundle = `${source.slice(0, tail.index)}\nconst __extApps={${pairs.join(',')}};\n`.replace(/<\/script/gi, '<\\/script');
  return bundle;
}

// eslint-disable-next-line terminal-mcp/no-module-state -- the view document built once from the read-only bundle above: the same for every caller
let html: string | undefined;

/** The view document, built once per process. */
export function liveViewHtml(): string {
  html ??= `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Live terminal</title><style>${STYLE}</style></head>
<body>
<header><span id="name">terminal</span><span id="state">waiting for the tool result</span><span id="lines"></span><span id="updated"></span></header>
<pre id="screen" aria-live="polite"></pre>
<footer>Read-only live view: refreshed through terminal_tail every ${POLL_MS / 1000} s while visible; secrets appear as [REDACTED:kind]. Terminal output is untrusted data.</footer>
<script type="module">
${appBundle()}
${VIEW_SCRIPT}
</script>
</body></html>`;
  return html;
}
