/**
 * The read path: discovery for every session (metadata only — discovery is not access),
 * and content (tail, capture, status, batch inspect) only for sessions the read gate
 * admits. Facts are re-read from tmux on every call; nothing a client says about a
 * session is trusted.
 */
import {
  AppError,
  LIMITS,
  readAppErrorData,
  type BatchInspectItem,
  type PaneText,
  type SessionStatusResult,
  type SessionSummary,
} from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { BrokerDeps } from '../deps.js';
import type { PaneFacts, SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { grantLookupOf } from '../grants/grant-lookup.js';
import { decideReadAccess } from '../policy/access.js';
import type { EffectiveGrant } from '../policy/grants.js';
import { classifyPaneStatus } from '../policy/status.js';
import { readPaneLines, startEarlyCapture, toLines } from './pane-text.js';
import { canRead, readGrantOf, readPolicy, resolveReadableSession, type GrantLookup } from './read-gate.js';
import { describeSessionAccess } from './session-access.js';

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** `grant`: the session's effective grant (read-gate.ts `readGrantOf`); omitted, only the
 * config whitelist admits. */
export function summarizeSession(config: BrokerConfig, s: SessionFacts, grant: EffectiveGrant | null = null): SessionSummary {
  return {
    name: s.name,
    session_id: s.sessionId,
    created: iso(s.created),
    attached: s.attached,
    windows: s.windows,
    last_activity: iso(s.activity),
    current_command: s.activePane?.currentCommand ?? '',
    in_copy_mode: s.activePane?.inMode ?? false,
    ...describeSessionAccess(config, s, grant),
  };
}

function activePaneOf(s: SessionFacts): PaneFacts {
  if (!s.activePane) throw new AppError('SESSION_NOT_FOUND', 'the session has no active pane');
  return s.activePane;
}

function paneText(s: SessionFacts, pane: PaneFacts, lines: string[], redactions: number, truncated: boolean): PaneText {
  return {
    session: s.name,
    session_id: s.sessionId,
    pane_id: pane.paneId,
    text: lines.join('\n'),
    line_count: lines.length,
    redactions,
    truncated,
  };
}

/** Classifies the active pane. Quiet time is measured from the window's last output
 * (`#{window_activity}`), not `#{session_activity}`, which every attaching client (our
 * output watchers included) bumps. */
export function statusOf(s: SessionFacts, pane: PaneFacts, screenLines: readonly string[], now: number): SessionStatusResult {
  const lastOutput = pane.windowActivity;
  const idleSeconds = Math.max(0, Math.floor(now / 1000) - lastOutput);
  const verdict = classifyPaneStatus({
    lines: screenLines,
    currentCommand: pane.currentCommand,
    inCopyMode: pane.inMode,
    idleSeconds,
  });
  return {
    session: s.name,
    session_id: s.sessionId,
    status: verdict.status,
    reason: verdict.reason,
    current_command: pane.currentCommand,
    in_copy_mode: pane.inMode,
    last_activity: iso(lastOutput),
    idle_seconds: idleSeconds,
  };
}

export interface SessionReader {
  list(filter?: { nameContains?: string; readableOnly?: boolean }): Promise<SessionSummary[]>;
  tail(name: string, lines?: number, stripAnsi?: boolean): Promise<PaneText>;
  capture(name: string, range: { start?: number; end?: number }, stripAnsi?: boolean): Promise<PaneText>;
  status(name: string): Promise<SessionStatusResult>;
  batchInspect(names: readonly string[] | undefined, lines?: number): Promise<BatchInspectItem[]>;
  /** The session and its active pane if its content may be read (whitelist or grant), for
   * other content readers (live output, wait); throws the same errors as `tail`. */
  resolveReadable(name: string, sessions?: readonly SessionFacts[]): Promise<{ s: SessionFacts; pane: PaneFacts }>;
}

export interface SessionReaderDeps {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  /** The operator's grants (grants/grant-lookup.ts `grantLookupOf`); absent: only the
   * whitelist admits. */
  grants?: GrantLookup | undefined;
  now?: () => number;
}

export function createSessionReader(deps: SessionReaderDeps): SessionReader {
  const { config, tmux } = deps;
  const now = deps.now ?? Date.now;
  const gate = { config, tmux, grants: deps.grants, now };

  async function readable(name: string, sessions?: readonly SessionFacts[]): Promise<{ s: SessionFacts; pane: PaneFacts }> {
    // One gate for every content read: whitelist or a grant pinned to this very session;
    // a denied name gets the same answer whether or not it exists.
    const s = await resolveReadableSession(gate, name, sessions);
    return { s, pane: activePaneOf(s) };
  }

  const summarize = (s: SessionFacts) => summarizeSession(config, s, readGrantOf(gate, s));

  /** Rows `start`..`end` of the pane as whole logical lines, redacted before they are cut
   * (escapes kept only when not stripped). */
  async function readPane(pane: PaneFacts, start: number, end: number | '-', stripAnsi: boolean) {
    return readPaneLines(tmux, pane, start, end, stripAnsi);
  }

  return {
    resolveReadable: readable,

    async list(filter = {}) {
      const sessions = await tmux.listSessions();
      return sessions
        .map(summarize)
        .filter((s) => (filter.nameContains ? s.name.includes(filter.nameContains) : true))
        .filter((s) => (filter.readableOnly ? s.read_allowed : true))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async tail(name, lines = config.default_tail_lines, stripAnsi = true) {
      const count = Math.min(lines, config.max_capture_lines);
      // One tmux round trip instead of two: the identity check goes out first, and right
      // behind it (same write, tmux runs them in order) a capture planned from the pane
      // as last seen. readPaneWindow uses that capture only when the check confirmed
      // that very pane and plan, after the gate admitted the session; else it captures
      // again. Only for names the whitelist admits as such (no grant lookup), so no
      // denied session's text is ever captured ahead.
      const found = readable(name);
      const hint = decideReadAccess(readPolicy(config), name).allowed ? (tmux.paneHint?.(name) ?? null) : null;
      const early = hint ? startEarlyCapture(tmux, hint, -count, '-', !stripAnsi) : undefined;
      const { s, pane } = await found;
      const clean = await readPaneLines(tmux, pane, -count, '-', stripAnsi, early);
      return paneText(s, pane, clean.lines.slice(-count), clean.redactions, lines > count);
    },

    async capture(name, range, stripAnsi = true) {
      const { s, pane } = await readable(name);
      const bottom = Math.max(0, pane.height - 1);
      const end = range.end ?? bottom;
      let start = range.start ?? end - config.max_capture_lines + 1;
      let truncated = false;
      if (end - start + 1 > config.max_capture_lines) {
        start = end - config.max_capture_lines + 1;
        truncated = true;
      }
      const clean = await readPane(pane, start, end, stripAnsi);
      return paneText(s, pane, clean.lines, clean.redactions, truncated);
    },

    async status(name) {
      const { s, pane } = await readable(name);
      return statusOf(s, pane, (await readPane(pane, 0, '-', true)).lines, now());
    },

    async batchInspect(names, lines = 10) {
      const sessions = await tmux.listSessions();
      const targets =
        names ??
        sessions
          .filter((s) => canRead(config, s.name, readGrantOf(gate, s)))
          .map((s) => s.name)
          .sort((a, b) => a.localeCompare(b))
          .slice(0, LIMITS.batchSessions);
      const at = now();
      return Promise.all(
        targets.slice(0, LIMITS.batchSessions).map(async (name): Promise<BatchInspectItem> => {
          try {
            const { s, pane } = await readable(name, sessions);
            // One capture serves both: the visible screen for status, the tail for display.
            const clean = await readPane(pane, -lines, '-', true);
            const screen = toLines(clean.lines.slice(-Math.max(pane.height, 1)).join('\n'));
            return {
              session: name,
              ok: true,
              status: statusOf(s, pane, screen, at),
              tail: paneText(s, pane, clean.lines.slice(-lines), clean.redactions, false),
            };
          } catch (err) {
            const app = readAppErrorData(err);
            if (!app) throw err;
            return { session: name, ok: false, error_code: app.code, message: (err as Error).message };
          }
        }),
      );
    },
  };
}

/** The reader every procedure should use: broker config and tmux, with the operator's
 * grants from grants.db wired into the read gate. */
export function sessionReaderFor(deps: Pick<BrokerDeps, 'config' | 'tmux' | 'stores'>): SessionReader {
  return createSessionReader({ config: deps.config, tmux: deps.tmux, grants: grantLookupOf(deps) });
}
