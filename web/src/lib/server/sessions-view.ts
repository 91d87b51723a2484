/** Loads the session list for the dashboard and the management table from the broker:
 * this host's sessions and those of every node that is up (`node:session`), one list.
 * The broker decides readability (`read_allowed`); only readable sessions get a status —
 * a restricted session's content is never fetched. Screens come over the live socket. */
import type { SessionAccess } from '@terminal-mcp/contract';
import { nodeOfName, type SessionsPageData, type SessionView } from '../session-view.js';
import { broker } from './broker.js';

function viewOf(s: SessionAccess): SessionView {
  const active = s.grant && s.grant.state === 'active' ? s.grant : null;
  const node = nodeOfName(s.name);
  const base: SessionView = {
    name: s.name,
    session_id: s.session_id,
    created: s.created,
    attached: s.attached,
    windows: s.windows,
    last_activity: s.last_activity,
    read_allowed: s.read_allowed,
    input_allowed: s.input_allowed,
    read_granted: s.read_granted,
    input_granted: s.input_granted,
    whitelisted: s.whitelisted,
    sensitive: s.sensitive,
    grantable: s.grantable,
    grant: active ? { read: active.read, input: active.input, expires_at: active.expires_at } : null,
    ...(node !== undefined && { node }),
  };
  if (s.read_allowed) {
    base.current_command = s.current_command;
    base.in_copy_mode = s.in_copy_mode;
    base.foreground_shell = s.foreground_shell;
  }
  return base;
}

export async function loadSessions(opts: { withStatus: boolean }): Promise<SessionsPageData> {
  const list = await broker().grants.list.query();
  // Recovery state of sessions launch profiles started (none when the broker cannot say).
  const managed = new Map((await broker().lifecycle.managed.query().catch(() => [])).map((m) => [`${m.session}|${m.session_id}`, m]));
  const sessions = await Promise.all(
    list.sessions.map(async (s) => {
      const view = viewOf(s);
      const m = managed.get(`${s.name}|${s.session_id}`);
      if (m) view.recovery = { profile: m.profile, state: m.state, recover: m.recover, restarts: m.restarts_last_hour, max: m.max_restarts_per_hour };
      if (!s.read_allowed) return view;
      const status = opts.withStatus ? await broker().sessions.status.query({ session: s.name }).catch(() => undefined) : undefined;
      if (status) view.status = { status: status.status, reason: status.reason };
      return view;
    }),
  );
  return { sessions, read_enabled: list.read_enabled, input_enabled: list.input_enabled, nodesNotUp: (list.nodes ?? []).filter((n) => n.state !== 'up') };
}
