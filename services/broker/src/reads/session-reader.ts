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
import type { PaneFacts, SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import { classifyPaneStatus } from '../policy/status.js';
import { cleanPaneText, toLines } from './pane-text.js';
import { assertCanRead, canRead } from './read-gate.js';
import { findSessionByName } from './resolve-session.js';

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function summarizeSession(config: BrokerConfig, s: SessionFacts): SessionSummary {
  return {
    name: s.name,
    session_id: s.sessionId,
    created: iso(s.created),
    attached: s.attached,
    windows: s.windows,
    last_activity: iso(s.activity),
    current_command: s.activePane?.currentCommand ?? '',
    in_copy_mode: s.activePane?.inMode ?? false,
    read_allowed: canRead(config, s.name),
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

function statusOf(s: SessionFacts, pane: PaneFacts, screenLines: readonly string[], now: number): SessionStatusResult {
  const idleSeconds = Math.max(0, Math.floor(now / 1000) - s.activity);
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
    last_activity: iso(s.activity),
    idle_seconds: idleSeconds,
  };
}

export interface SessionReader {
  list(filter?: { nameContains?: string; readableOnly?: boolean }): Promise<SessionSummary[]>;
  tail(name: string, lines?: number, stripAnsi?: boolean): Promise<PaneText>;
  capture(name: string, range: { start?: number; end?: number }, stripAnsi?: boolean): Promise<PaneText>;
  status(name: string): Promise<SessionStatusResult>;
  batchInspect(names: readonly string[] | undefined, lines?: number): Promise<BatchInspectItem[]>;
}

export function createSessionReader(deps: { config: BrokerConfig; tmux: TmuxAdapter; now?: () => number }): SessionReader {
  const { config, tmux } = deps;
  const now = deps.now ?? Date.now;

  async function readable(name: string, sessions?: readonly SessionFacts[]): Promise<{ s: SessionFacts; pane: PaneFacts }> {
    // Policy first: a denied name gets the same answer whether or not it exists.
    assertCanRead(config, name);
    const s = findSessionByName(sessions ?? (await tmux.listSessions()), name);
    return { s, pane: activePaneOf(s) };
  }

  /** The last `count` non-padding lines, plus the visible screen for status. */
  async function captureTail(pane: PaneFacts, count: number, stripAnsi: boolean) {
    const raw = await tmux.capturePane(pane.paneId, { start: -count, end: '-', escapes: !stripAnsi });
    const clean = cleanPaneText(raw, stripAnsi);
    const tail = clean.lines.slice(-count);
    return { tail, clean, raw };
  }

  return {
    async list(filter = {}) {
      const sessions = await tmux.listSessions();
      return sessions
        .map((s) => summarizeSession(config, s))
        .filter((s) => (filter.nameContains ? s.name.includes(filter.nameContains) : true))
        .filter((s) => (filter.readableOnly ? s.read_allowed : true))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async tail(name, lines = config.default_tail_lines, stripAnsi = true) {
      const { s, pane } = await readable(name);
      const count = Math.min(lines, config.max_capture_lines);
      const { tail, clean } = await captureTail(pane, count, stripAnsi);
      return paneText(s, pane, tail, clean.redactions, lines > count);
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
      const raw = await tmux.capturePane(pane.paneId, { start, end, escapes: !stripAnsi });
      const clean = cleanPaneText(raw, stripAnsi);
      return paneText(s, pane, clean.lines, clean.redactions, truncated);
    },

    async status(name) {
      const { s, pane } = await readable(name);
      const raw = await tmux.capturePane(pane.paneId, { start: 0, end: '-' });
      return statusOf(s, pane, cleanPaneText(raw, true).lines, now());
    },

    async batchInspect(names, lines = 10) {
      const sessions = await tmux.listSessions();
      const targets =
        names ??
        sessions
          .filter((s) => canRead(config, s.name))
          .map((s) => s.name)
          .sort((a, b) => a.localeCompare(b))
          .slice(0, LIMITS.batchSessions);
      const at = now();
      return Promise.all(
        targets.slice(0, LIMITS.batchSessions).map(async (name): Promise<BatchInspectItem> => {
          try {
            const { s, pane } = await readable(name, sessions);
            // One capture serves both: the visible screen for status, the tail for display.
            const raw = await tmux.capturePane(pane.paneId, { start: -lines, end: '-' });
            const clean = cleanPaneText(raw, true);
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
