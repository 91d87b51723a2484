import { error } from '@sveltejs/kit';
import { INPUT_LIMITS, LIMITS, PANE_REF_PATTERN, SENSITIVE_KEYS, type ListedPane } from '@terminal-mcp/contract';
import { accessAction } from '$lib/server/access-action.js';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { secretAction } from '$lib/server/secret-entry-action.js';
import { sendAction } from '$lib/server/send-action.js';
import { loadSessions } from '$lib/server/sessions-view.js';
import { resizeAction } from '$lib/server/lifecycle-actions.js';
import { nodeOfName, type SessionsPageData } from '$lib/session-view.js';
import type { Actions, PageServerLoad } from './$types';

/** The full view of one session (`/view?session=NAME`): its metadata from the same list
 * the dashboard loads, and a status only when the broker lets the web role read it. */
/** The browser needs these lists but not the contract's schemas (zod stays server-side). */
const keys = { sensitiveKeys: [...SENSITIVE_KEYS] as string[], keysPerCall: INPUT_LIMITS.keysPerCall };

/**
 * Why a session of another host (`node:session`, docs/nodes.md) is not in the list: its
 * node is down (its reason and hint; the live view says so too and resumes when the node
 * is back). null: not a node's name, or its node is up (then there is no such session).
 */
function nodeDownOf(name: string, page: SessionsPageData): { reason: string; hint: string } | null {
  const node = nodeOfName(name);
  const state = node === undefined ? undefined : page.nodesNotUp.find((n) => n.node === node);
  return state === undefined || state.state !== 'down' ? null : { reason: state.reason ?? '', hint: state.hint ?? '' };
}

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  event.depends('app:view');
  const name = event.url.searchParams.get('session') ?? '';
  if (name.length === 0 || name.length > LIMITS.sessionName) error(404, 'no such session');
  // `?pane=`: the tab shown (`%id` or `window.pane`; the broker resolves it in this session
  // only). Anything else is no pane of any session.
  const paneParam = event.url.searchParams.get('pane');
  if (paneParam !== null && !PANE_REF_PATTERN.test(paneParam)) error(404, 'no such pane');
  const pane = paneParam ?? undefined;
  try {
    // One list for this host's sessions and every up node's (node:session).
    const page = await loadSessions({ withStatus: false });
    const session = page.sessions.find((s) => s.name === name) ?? null;
    const nodeDown = session === null ? nodeDownOf(name, page) : null;
    let panes: ListedPane[] = [];
    if (session?.read_allowed) {
      const [status, listed] = await Promise.all([
        broker().sessions.status.query({ session: name, ...(pane !== undefined ? { pane } : {}) }).catch(() => undefined),
        broker().sessions.panes.query({ session: name }).catch(() => undefined),
      ]);
      if (status) session.status = { status: status.status, reason: status.reason };
      panes = listed?.panes ?? [];
    }
    // Requests for a person about this session (terminal_request_human, a node's too), for
    // the secret entry.
    const notices = session?.read_allowed ? await broker().human.notices.query({}).catch(() => []) : [];
    const requests = notices.filter((n) => n.kind === 'waiting_for_human' && n.session === name);
    // Which program would read the secret entry's answer, read from the pane's process tree
    // (never the screen), shown next to the entry while a person is asked for.
    const humanWaiting = session?.read_allowed === true && (session.status?.status === 'WAITING_HUMAN' || requests.length > 0);
    const reader = humanWaiting ? await broker().human.promptReader.query({ session: name, ...(pane !== undefined ? { pane } : {}) }).catch(() => null) : null;
    return { name, pane, panes, session, nodeDown, input_enabled: page.input_enabled, keys, requests, reader, failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { name, pane, panes: [] as ListedPane[], session: null, nodeDown: null, input_enabled: false, keys, requests: [], reader: null, failure };
    error(status, 'could not load the session');
  }
};

export const actions: Actions = {
  send: sendAction,
  secret: secretAction,
  access: accessAction,
  resize: resizeAction,
};
