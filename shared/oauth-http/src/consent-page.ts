/**
 * The login-and-consent page and the error page of /authorize: server-rendered HTML, no
 * script at all. Everything interpolated is escaped (the client name comes from open
 * registration, i.e. from anyone). The Content-Security-Policy allows only our inline
 * stylesheet (by hash), no frames around the page (clickjacking), and form submission to
 * ourselves plus the client's redirect origin (browsers apply `form-action` to the
 * redirect that follows the POST).
 */
import { createHash } from 'node:crypto';
import { scopeField, type OAuthResourceProfile } from './profile.js';

// The dashboard's theme (web/src/app.css: colours, radius, buttons, the auth card), so
// the operator recognises the page they sign in on.
const STYLE = `
:root{--bg:#0d1117;--panel:#161b22;--panel-2:#1c232c;--border:#2d3640;--text:#e6edf3;--muted:#8b96a3;--accent:#5fd38d;--accent-2:#3fb6f0;--danger:#f26d6d;color-scheme:dark}
body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','DejaVu Sans',sans-serif;margin:0;background:var(--bg);color:var(--text)}
main{max-width:440px;margin:40px auto;padding:22px;background:var(--panel);border:1px solid var(--border);border-radius:10px}
h1{font-size:1.3rem;margin:4px 0 14px}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;min-height:38px;padding:8px 10px;font:inherit;color:inherit;background:#0b0f14;border:1px solid var(--border);border-radius:8px}
input:focus-visible,button:focus-visible{outline:2px solid var(--accent-2);outline-offset:1px}
.actions{display:flex;gap:.75rem;margin-top:1.2rem}
button{flex:1;min-height:36px;padding:7px 12px;font:inherit;color:inherit;border-radius:8px;border:1px solid var(--border);background:var(--panel-2);cursor:pointer}
button:hover{border-color:var(--accent-2)}
button.primary{background:#1f6f43;border-color:#2c8a57}
.error{background:#3a1616;color:#ffd0d0;border:1px solid #7a2d2d;padding:.6rem;border-radius:8px}
.note{color:var(--muted);font-size:.9rem}
label.scope{display:inline;margin:0}
label.scope input{width:auto;min-height:0;margin-right:.3rem}
.scopes{padding-left:1.2rem}
.scopes li{margin:.4rem 0}
code{word-break:break-all;font-family:ui-monospace,'DejaVu Sans Mono',monospace}
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

/** Referrer policy `same-origin`, never `no-referrer`: with no-referrer Chromium posts the
 * page's own form with `Origin: null`, which the Origin gate must refuse. same-origin keeps
 * our origin on our own form and still sends no Referer to the client's redirect URI. */
export const PAGE_REFERRER_POLICY = 'same-origin';

export function pageSecurityHeaders(redirectUri?: string): Record<string, string> {
  const formAction = `'self'${redirectUri ? cspOrigin(redirectUri) : ''}`;
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'Referrer-Policy': PAGE_REFERRER_POLICY,
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${PAGE_REFERRER_POLICY}"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

export interface ConsentPageInput {
  profile: OAuthResourceProfile;
  clientName: string;
  redirectUri: string;
  formToken: string;
  /** The scopes asked for (see requestedScopes); optional ones get a checkbox, unticked:
   * least privilege by default, the person ticks what they mean to allow. */
  scopes: readonly string[];
  /** Pre-filled after a failed attempt. */
  username?: string;
  error?: string;
}

function scopeList(profile: OAuthResourceProfile, requested: readonly string[]): string {
  const items = profile.scopes
    .filter((s) => requested.includes(s.name))
    .map((s, i) =>
      i === 0
        ? `<li><strong>${escapeHtml(s.label)}</strong> (<code>${escapeHtml(s.name)}</code>): ${escapeHtml(s.detail)}</li>`
        : `<li><label class="scope"><input type="checkbox" name="${escapeHtml(scopeField(s.name))}" value="on"> <strong>${escapeHtml(s.label)}</strong> (<code>${escapeHtml(s.name)}</code>)</label> ${escapeHtml(s.detail)} <span class="note">Left unticked, this is not allowed.</span></li>`,
    );
  return `<ul class="scopes">\n${items.join('\n')}\n</ul>`;
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
    `<h1>Allow “${client}” to ${escapeHtml(input.profile.consentAsk)}?</h1>
<p><strong>${client}</strong> asks for access to Terminal MCP on this machine:</p>
<form method="post" action="/authorize">
${scopeList(input.profile, input.scopes)}
<p>${escapeHtml(input.profile.consentLimits)}</p>
<p class="note">After you decide you return to <code>${escapeHtml(destination)}</code>. Only continue if you started this from that app just now.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
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

/** A refusal as a page: what happened and what to do next (never raw JSON: a person
 * reads this). */
export function renderErrorPage(title: string, message: string, whatToDo = 'Close this window and start again from your MCP client.'): string {
  return page(`Terminal MCP: ${title}`, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>\n<p class="note">${escapeHtml(whatToDo)}</p>`);
}
