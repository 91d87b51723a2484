import { error } from '@sveltejs/kit';
import { INPUT_LIMITS, LIMITS, PANE_REF_PATTERN, SENSITIVE_KEYS, type ListedPane } from '@terminal-mcp/contract';
import { accessAction } from '$lib/server/access-action.js';
import { requirePageUser } from '$lib/server/auth.js';
import { broker } from '$lib/server/broker.js';
import { toUiError } from '$lib/server/failure.js';
import { secretAction } from '$lib/server/secret-entry-action.js';
import { sendAction } from '$lib/server/send-action.js';
import { loadSessions, nodeSessionView } from '$lib/server/sessions-view.js';
import { resizeAction } from '$lib/server/lifecycle-actions.js';
import type { SessionView } from '$lib/session-view.js';
import type { Actions, PageServerLoad } from './$types';

/** The full view of one session (`/view?session=NAME`): its metadata from the same list
 * the dashboard loads, and a status only when the broker lets the web role read it. */
/** The browser needs these lists but not the contract's schemas (zod stays server-side). */
const keys = { sensitiveKeys: [...SENSITIVE_KEYS] as string[], keysPerCall: INPUT_LIMITS.keysPerCall };

/**
 * A session of another host (`node:session`, docs/nodes.md): its row from the broker's
 * session list, which lists every node's sessions with the node's own read and input
 * verdicts (the grants list is this host's only). undefined: not a node's name. A node
 * that is down cannot list its sessions: `down` says why (its reason and hint), and the
 * live view says so too and resumes when the node is back.
 */
async function nodeSession(name: string): Promise<{ session: SessionView | null; input_enabled: boolean; down: { reason: string; hint: string } | null } | undefined> {
  const colon = name.indexOf(':');
  if (colon <= 0) return undefined;
  const node = name.slice(0, colon);
  if (node === 'local') return undefined;
  const list = await broker().sessions.list.query({ name_filter: name.slice(colon + 1) });
  const state = list.nodes?.find((n) => n.node === node);
  if (state === undefined) return undefined;
  const s = list.sessions.find((x) => x.name === name);
  const session: SessionView | null = s === undefined ? null : nodeSessionView(s, node);
  const down = state.state === 'down' && session === null ? { reason: state.reason ?? '', hint: state.hint ?? '' } : null;
  const { input_enabled } = await broker().grants.list.query();
  return { session, input_enabled, down };
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
    const remote = await nodeSession(name);
    const page = remote === undefined ? await loadSessions({ withStatus: false }) : { sessions: [], input_enabled: remote.input_enabled };
    const session = remote === undefined ? (page.sessions.find((s) => s.name === name) ?? null) : remote.session;
    const nodeDown = remote?.down ?? null;
    let panes: ListedPane[] = [];
    if (session?.read_allowed) {
      const [status, listed] = await Promise.all([
        broker().sessions.status.query({ session: name, ...(pane !== undefined ? { pane } : {}) }).catch(() => undefined),
        broker().sessions.panes.query({ session: name }).catch(() => undefined),
      ]);
      if (status) session.status = { status: status.status, reason: status.reason };
      panes = listed?.panes ?? [];
    }
    // Requests for a person about this session (terminal_request_human), for the secret entry.
    const notices = session?.read_allowed && remote === undefined ? await broker().human.notices.query({}).catch(() => []) : [];
    const requests = notices.filter((n) => n.kind === 'waiting_for_human' && n.session === name);
    return { name, pane, panes, session, nodeDown, input_enabled: page.input_enabled, keys, requests, failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE') return { name, pane, panes: [] as ListedPane[], session: null, nodeDown: null, input_enabled: false, keys, requests: [], failure };
    error(status, 'could not load the session');
  }
};

export const actions: Actions = {
  send: sendAction,
  secret: secretAction,
  access: accessAction,
  resize: resizeAction,
};
