/**
 * The login-and-consent page and the error page of /authorize: server-rendered HTML, no
 * script at all. Everything interpolated is escaped (the client name comes from open
 * registration, i.e. from anyone). The Content-Security-Policy allows only our inline
 * stylesheet (by hash), no frames around the page (clickjacking), and form submission to
 * ourselves plus the client's redirect origin (browsers apply `form-action` to the
 * redirect that follows the POST).
 */
import { createHash } from 'node:crypto';

// The dashboard's theme (web/src/app.css): the operator sees one product, dark, with the
// same greens for "approve" and reds for errors.
const STYLE = `
:root{color-scheme:dark}
body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','DejaVu Sans',sans-serif;margin:0;background:#0d1117;color:#e6edf3}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#161b22;border:1px solid #2d3640;border-radius:10px}
h1{font-size:1.3rem;margin-top:0}
a{color:#3fb6f0}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem .6rem;font:inherit;color:inherit;background:#0b0f14;border:1px solid #2d3640;border-radius:8px;min-height:38px}
input:focus-visible,button:focus-visible{outline:2px solid #3fb6f0;outline-offset:1px}
.actions{display:flex;gap:.75rem;margin-top:1.2rem}
button{flex:1;padding:.6rem;font:inherit;color:inherit;border-radius:8px;border:1px solid #2d3640;background:#1c232c;cursor:pointer;min-height:38px}
button:hover{border-color:#3fb6f0}
button.primary{background:#1f6f43;border-color:#2c8a57}
.error{background:#3a1616;color:#ffd0d0;border:1px solid #7a2d2d;padding:.6rem;border-radius:8px}
.note{color:#8b96a3;font-size:.9rem}
code{word-break:break-all;font-family:ui-monospace,'DejaVu Sans Mono','Liberation Mono',Menlo,monospace}
@media (max-width:640px){main{margin:1rem;padding:1.2rem}}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The origin a form may be redirected to, as a CSP source; nothing when it cannot be
 * expressed (the POST still works in browsers that do not check redirects). */
function cspOrigin(uri: string): string {
  try {
    const origin = new URL(uri).origin;
    return /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin) ? ` ${origin}` : '';
  } catch {
    return '';
  }
}

export function pageSecurityHeaders(redirectUri?: string): Record<string, string> {
  const formAction = `'self'${redirectUri ? cspOrigin(redirectUri) : ''}`;
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

export interface ConsentPageInput {
  clientName: string;
  redirectUri: string;
  formToken: string;
  /** Pre-filled after a failed attempt. */
  username?: string;
  error?: string;
}

export function renderConsentPage(input: ConsentPageInput): string {
  const client = escapeHtml(input.clientName);
  let destination = input.redirectUri;
  try {
    destination = new URL(input.redirectUri).host;
  } catch {
    // keep the full text
  }
  return page(
    'Terminal MCP: allow access?',
    `<h1>Allow “${client}” to read your terminals?</h1>
<p><strong>${client}</strong> asks for <strong>read-only</strong> access to Terminal MCP on this machine:
list tmux sessions, read the ones the operator's policy allows, and read the configured project sources.
It cannot type into terminals or change anything.</p>
<p class="note">After you decide you return to <code>${escapeHtml(destination)}</code>. Only continue if you started this from that app just now.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/authorize">
<input type="hidden" name="form_token" value="${escapeHtml(input.formToken)}">
<label for="username">Dashboard user name</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64" value="${escapeHtml(input.username ?? '')}" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024" required>
<!-- Approve comes first: pressing Enter in a field submits with the first button. -->
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Sign in and allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return page(`Terminal MCP: ${title}`, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n<p class="note">Close this window and start again from your MCP client.</p>`);
}
