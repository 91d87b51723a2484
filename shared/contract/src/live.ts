/** Schemas of live pane output, a broker-internal subscription the dashboard's server
 * code consumes over web.sock (WebSocket). Not an MCP tool, so fields are camelCase. */
import { z } from 'zod';
import { paneArg, sessionNameSchema } from './sessions.js';

/** `operatorSession`: the signed-in operator's session token. One WebSocket to web.sock
 * carries every browser's subscriptions, so the token travels with each subscription (not
 * in a connection header); the broker serves frames only for a valid one. */
/** `pane`: that pane of the session (sessions.ts `paneRefSchema`) instead of its active one. */
export const paneOutputInputSchema = z.object({ session: sessionNameSchema, pane: paneArg, operatorSession: z.string().min(1).max(128) }).strict();
export type PaneOutputInput = z.infer<typeof paneOutputInputSchema>;

/**
 * One frame: the pane's whole visible screen, redacted, as terminal bytes that draw it.
 * `data` starts with reset + home + clear screen, then the rows (SGR colours only, rows
 * joined by CRLF), then reset, the cursor position and its visibility: write it to an
 * xterm.js terminal of `width` x `height` as it is (`term.write(frame.data)`). Each frame
 * replaces the previous one; the first frame of a subscription is the current screen,
 * later ones follow the pane's output (at most ~10 per second, none while it is quiet).
 */
export const paneScreenFrameSchema = z.object({
  type: z.literal('screen'),
  /** 0 for the first frame of a subscription, then 1, 2, ... (restarts after a reconnect). */
  seq: z.number().int(),
  session: z.string(),
  sessionId: z.string(),
  paneId: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  cursor: z.object({ x: z.number().int(), y: z.number().int(), visible: z.boolean() }),
  data: z.string(),
  /** Secrets replaced by `[REDACTED:kind]` in this frame. */
  redactions: z.number().int(),
  /** ISO 8601 time the screen was captured. */
  capturedAt: z.string(),
});
export type PaneScreenFrame = z.infer<typeof paneScreenFrameSchema>;

/**
 * A node session's stream while its node cannot be reached (`node:session` only): the
 * stream stays open, sends no screen, and goes on with a fresh frame of the same session
 * (same node tmux server, session id and creation time) once the node is up again. Sent
 * again only when the reason changes. `message` and `hint` are the NODE_UNAVAILABLE
 * error's (a category and what to do, e.g. the `ssh-keyscan` command for an unknown key;
 * never ssh's own output).
 */
export const paneUnavailableSchema = z.object({
  type: z.literal('unavailable'),
  code: z.literal('NODE_UNAVAILABLE'),
  session: z.string(),
  message: z.string(),
  hint: z.string(),
  /** ISO 8601 time the node was seen down. */
  at: z.string(),
});
export type PaneUnavailable = z.infer<typeof paneUnavailableSchema>;

/** What `live.paneOutput` sends: screens, and for a node session, its node's outages. */
export const paneLiveEventSchema = z.discriminatedUnion('type', [paneScreenFrameSchema, paneUnavailableSchema]);
export type PaneLiveEvent = z.infer<typeof paneLiveEventSchema>;
