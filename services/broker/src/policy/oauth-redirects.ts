/**
 * Which redirect URIs an OAuth client may register (dynamic registration is open to
 * anyone, so this list is what stops a registration from sending codes elsewhere). Pure:
 * a function of the rules and the URI text. Matching at authorization time is by exact
 * string against what was registered here.
 *
 * Every accepted URI must be the parser's own serialisation of itself, so text a parser
 * would quietly normalise (backslashes, tabs, `..`, upper-case hosts, default ports,
 * percent-encoded slashes in a path segment) never passes as something it is not.
 */

export interface RedirectRules {
  /** Exact URIs (e.g. claude.ai's or ChatGPT's fixed callback). */
  exact: readonly string[];
  /** http on 127.0.0.1, localhost or [::1] with any port and path (RFC 8252 section 7.3). */
  loopback: boolean;
  /** `https://chatgpt.com/connector/oauth/<one path segment>`: ChatGPT gives each
   * connector its own callback id under this fixed prefix. */
  chatgptConnector: boolean;
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** One path segment: ChatGPT's callback ids are short base64url-like strings. */
const CHATGPT_CONNECTOR_PATH = /^\/connector\/oauth\/[A-Za-z0-9_-]{1,128}$/;

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

function isLoopbackRedirect(uri: string): boolean {
  const url = parse(uri);
  if (!url || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  if (url.username || url.password || uri.includes('#')) return false;
  // `http://127.0.0.1:8080` serialises with a trailing slash: accept either spelling.
  return url.href === uri || url.href === `${uri}/`;
}

function isChatGptConnectorRedirect(uri: string): boolean {
  const url = parse(uri);
  if (!url || url.href !== uri) return false;
  return (
    url.protocol === 'https:' &&
    url.hostname === 'chatgpt.com' &&
    url.port === '' &&
    !url.username &&
    !url.password &&
    url.search === '' &&
    url.hash === '' &&
    CHATGPT_CONNECTOR_PATH.test(url.pathname)
  );
}

export function redirectUriAllowed(uri: string, rules: RedirectRules): boolean {
  if (rules.exact.includes(uri)) return true;
  if (rules.loopback && isLoopbackRedirect(uri)) return true;
  return rules.chatgptConnector && isChatGptConnectorRedirect(uri);
}
