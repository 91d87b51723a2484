/** Read-path procedures: discovery and content reads. Inputs are validated again here
 * with the same contract schemas the edges use (never trust the client's validation). */
import {
  AppError,
  batchInspectInputSchema,
  captureInputSchema,
  exportTranscriptInputSchema,
  listPanesInputSchema,
  listSessionsInputSchema,
  readSinceInputSchema,
  statusInputSchema,
  tailInputSchema,
  transcriptFileInputSchema,
  type PaneText,
  type TmuxServerState,
} from '@terminal-mcp/contract';
import { auditedRead, recordRead } from '../../audit/record-read.js';
import type { ListedSession } from '../../effects/tmux/types.js';
import type { Host } from '../../nodes/host-set.js';
import { batchAcrossHosts, listNodeSessions } from '../../nodes/node-reads.js';
import type { ReadableTarget } from '../../access/target.js';
import type { SessionReader } from '../../reads/session-reader.js';
import type { TranscriptReads } from '../../transcripts/transcript-reads.js';
import { listDeadSessions } from '../../registry/session-registry.js';
import { parkedSessionResets } from '../../supervisor/limit-parks.js';
import { transcriptById, withDeadTranscripts } from '../../transcripts/transcript-reads.js';
import type { BrokerContext } from '../context.js';
import { operatorOf, operatorProcedure } from '../operator.js';
import { raise, servedTo } from '../trpc.js';

/** Every content read is recorded in the read audit (queued, never slowing the read). */
const paneTextFacts = (r: PaneText) => ({ sessionId: r.session_id, paneId: r.pane_id, lineCount: r.line_count });

/** THE reader (rpc/deps.ts): the access gate with the operator's grants, so a granted
 * session reads like a whitelisted one. */
const reader = (ctx: BrokerContext) => ctx.deps.reader;

/** A host's transcript reads; a node built without a recorder has no transcripts. */
function transcriptsOn(host: Host): TranscriptReads {
  if (host.transcripts === undefined) throw new AppError('READ_DISABLED', 'transcripts are not recorded on this node', 'Read the session with terminal_tail.');
  return host.transcripts;
}

/** tmux's session listing, or none when no tmux server runs at all: that is when the
 * user's last session has ended and someone asks what died, so the registry must still
 * answer. A server that runs but does not answer stays an error (an empty list would
 * claim its sessions are gone). */
async function liveSessions(ctx: BrokerContext): Promise<{ live: ListedSession[]; tmux: TmuxServerState }> {
  const { tmux } = ctx.deps;
  if (tmux.noServer()) return { live: [], tmux: 'not_running' };
  try {
    return { live: await tmux.listSummaries(), tmux: 'running' };
  } catch (err) {
    // The server went away during the listing.
    if (tmux.noServer()) return { live: [], tmux: 'not_running' };
    throw err;
  }
}

/** Discovery and status: both MCP services and the dashboard's session list. */
const everyRole = servedTo('gateway', 'observer', 'web');
/** Pane content: the MCP services only (the dashboard shows content as live frames). */
const mcpServices = servedTo('gateway', 'observer');

export const sessions = {
  list: everyRole.input(listSessionsInputSchema).query(async ({ ctx, input }) => {
    // The dashboard shows gone sessions (with their last screens) to a signed-in operator only.
    if (input.include_dead && ctx.role === 'web' && operatorOf(ctx) === null) raise(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
    // A pure read: the registry follows tmux's own session notifications
    // (registry/session-registry.ts), so listing writes nothing. The lighter summary
    // listing: a list shows fewer facts than a read needs.
    const { live, tmux } = await liveSessions(ctx);
    const sessions = await reader(ctx).list({ nameContains: input.name_filter, readableOnly: input.readable_only }, live);
    const dead = input.include_dead ? withDeadTranscripts(ctx.deps, live, listDeadSessions(ctx.deps)).filter((d) => input.name_filter === undefined || d.name.includes(input.name_filter)) : undefined;
    // A remembered screen is content: its delivery is a read like any other.
    for (const d of dead ?? []) {
      if (d.last_screen !== null) recordRead(ctx, 'terminal_list_sessions', { session: d.name, sessionId: d.session_id, lineCount: d.last_screen.split('\n').length });
    }
    // Every node in the same call (nodes/node-reads.ts): its sessions as node:session, and whether it is up.
    const remote = ctx.deps.nodes !== undefined ? await listNodeSessions(ctx.deps.nodes, { nameContains: input.name_filter, readableOnly: input.readable_only }) : undefined;
    // Parked at a usage limit (supervisor/limit-parks.ts): when it resets, for sessions the
    // caller may read only (the time comes from the screen).
    const resets = parkedSessionResets(ctx.deps.supervisor.store);
    const withResets = (list: typeof sessions) =>
      resets.size === 0 ? list : list.map((s) => (s.read_allowed && resets.has(s.name) ? { ...s, limit_resets_at: resets.get(s.name) as string } : s));
    return {
      sessions: withResets(remote === undefined ? sessions : [...sessions, ...remote.sessions]),
      read_enabled: ctx.deps.config.permissions.terminal_read,
      tmux,
      ...(dead && { dead_sessions: dead }),
      ...(remote && { nodes: [{ node: 'local', state: tmux === 'running' ? ('up' as const) : ('down' as const) }, ...remote.nodes] }),
    };
  }),

  tail: mcpServices
    .input(tailInputSchema)
    .query(({ ctx, input }) =>
      auditedRead(
        ctx,
        'terminal_tail',
        input.session,
        () => {
          // Through a host's transcripts: the cursor, and a gone session's lines; a named
          // pane's cursor follows that pane, and a gone session gives that pane's lines.
          const tail = (t: TranscriptReads | undefined, r: SessionReader, session: string) => {
            const strip = input.strip_ansi ?? true;
            // The target the gate admitted to start a recording is read as it is: the gate
            // is asked once per tail (a named pane is admitted with its pane, by the read).
            const live = (admitted: ReadableTarget | null = null) => (admitted !== null && input.pane === undefined ? r.tailOf(admitted, input.lines, strip) : r.tail(session, input.lines, strip, input.pane));
            if (t === undefined) return live();
            return t.tail(session, input.lines ?? ctx.deps.config.default_tail_lines, input.include_dead === true, () => t.withCursor(session, live, input.pane !== undefined), input.pane);
          };
          return ctx.deps.hosts.read(input.session, (host, session) => tail(host.transcripts, host.reader, session));
        },
        paneTextFacts,
      ),
    ),

  capture: mcpServices
    .input(captureInputSchema)
    .query(({ ctx, input }) =>
      auditedRead(
        ctx,
        'terminal_capture',
        input.session,
        () => {
          const range = { start: input.start_line, end: input.end_line };
          const capture = (t: TranscriptReads | undefined, r: SessionReader, session: string) => {
            const live = () => r.capture(session, range, input.strip_ansi ?? true, input.pane);
            if (t === undefined) return live();
            return t.capture(session, range, input.include_dead === true, () => t.withCursor(session, live, input.pane !== undefined), input.pane);
          };
          return ctx.deps.hosts.read(input.session, (host, session) => capture(host.transcripts, host.reader, session));
        },
        paneTextFacts,
      ),
    ),

  status: everyRole.input(statusInputSchema).query(({ ctx, input }) => {
    // A status quotes what the screen shows (a prompt, a menu's question): on web.sock it
    // is a content read like any other, for a signed-in operator only.
    if (ctx.role === 'web' && operatorOf(ctx) === null) raise(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
    return auditedRead(
      ctx,
      'terminal_status',
      input.session,
      () =>
        ctx.deps.hosts.read(input.session, (host, session) => host.reader.status(session, input.pane)),
      (r) => ({ sessionId: r.session_id }),
    );
  }),

  /** A session's windows and panes (terminal_list_panes; the dashboard's pane tabs): what
   * `pane` may name. Window names are program-set text: on web.sock for a signed-in
   * operator only, like a status. */
  panes: servedTo('gateway', 'web')
    .input(listPanesInputSchema)
    .query(({ ctx, input }) => {
      if (ctx.role === 'web' && operatorOf(ctx) === null) raise(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
      return auditedRead(
        ctx,
        'terminal_list_panes',
        input.session,
        () => ctx.deps.hosts.read(input.session, (host, session) => host.reader.panes(session)),
        (r) => ({ sessionId: r.session_id }),
      );
    }),

  batchInspect: mcpServices
    .input(batchInspectInputSchema)
    .query(async ({ ctx, input }) => {
      // Each host's names in one batch on that host, with its transcripts' cursors.
      const batch = (t: TranscriptReads | undefined, r: SessionReader, names: string[] | undefined) => {
        const read = () => r.batchInspect(names, input.lines, input.panes === true);
        return t === undefined ? read() : t.withCursors(names, read, input.panes === true);
      };
      const results = await batchAcrossHosts(ctx.deps.hosts, input.sessions, (host, names) => batch(host.transcripts, host.reader, names));
      for (const r of results) {
        recordRead(
          ctx,
          'terminal_batch_inspect',
          r.ok ? { session: r.session, sessionId: r.tail.session_id, paneId: r.tail.pane_id, lineCount: r.tail.line_count } : { session: r.session, errorCode: r.error_code },
        );
      }
      return { results };
    }),

  /** Output produced after a cursor (from the session's transcript). */
  readSince: mcpServices
    .input(readSinceInputSchema)
    .query(({ ctx, input }) =>
      auditedRead(
        ctx,
        'terminal_read_since',
        input.session,
        () =>
          ctx.deps.hosts.read(input.session, (host, session) => transcriptsOn(host).readSince({ ...input, session })),
        (r) => ({ sessionId: r.session_id, lineCount: r.line_count }),
      ),
    ),

  /** A session's transcript as asciicast v2 (bounded; the dashboard serves the whole file). */
  exportTranscript: servedTo('gateway')
    .input(exportTranscriptInputSchema)
    .query(({ ctx, input }) =>
      auditedRead(
        ctx,
        'terminal_export_transcript',
        input.session,
        () =>
          ctx.deps.hosts.read(input.session, (host, session) => transcriptsOn(host).exportCast(session, input.include_dead === true, undefined, input.pane)),
        (r) => ({ sessionId: r.session_id, lineCount: r.events }),
      ),
    ),
};

/** The dashboard's Gone sessions page: a transcript viewed read-only or downloaded as .cast,
 * for a signed-in operator, under the same read rule as every transcript read. */
export const dashboardTranscripts = {
  file: operatorProcedure
    .input(transcriptFileInputSchema)
    .query(({ ctx, input }) => {
      const r = transcriptById(ctx.deps, input.transcript_id, input.format);
      recordRead(ctx, 'dashboard_transcript', { session: r.name, sessionId: r.session_id });
      return r;
    }),
};
