/**
 * Session facts tmux announces every change of, kept between session listings so that a
 * listing asks tmux only for the facts that change silently (at 200 sessions, measured on
 * a control client of our own: 4.5 ms of tmux's time for every field, 3.2 ms for the
 * silent ones; most of that is `#{pane_current_command}`, which tmux reads from /proc for
 * each pane).
 *
 * Announced (checked in tmux 3.3a's source, control-notify.c, and by
 * adapter.announced-facts.test.ts on a real server): every control client with a session
 * is told of
 * - a session created or closed: `%sessions-changed`; renamed: `%session-renamed`;
 * - a window linked to or unlinked from any session (every change of its window count:
 *   each winlink_add and winlink_remove in tmux has one, bar renumbering and undone
 *   spawns, which keep the count): `%window-add`/`%window-close`, or
 *   `%unlinked-window-add`/`%unlinked-window-close` for sessions other than its own.
 * The server pid and the creation time never change while we are connected, and a new
 * connection forgets everything.
 * Silent, so asked on every listing: the windows' last output, the active pane's current
 * command, the attached count (a suspended client stops counting without a word) and the
 * active pane's copy mode (`respawn-window -k` makes another pane active without a
 * `%window-pane-changed`).
 *
 * The rule is an allowlist the other way round: ANY notification not named below as
 * harmless forgets the kept facts, so a notification we never thought about (or a newer
 * tmux's) costs one full listing, never a stale answer.
 */
import type { ListedSession } from './types.js';

/** What a listing may take from an earlier one of the same generation. */
export type AnnouncedFacts = Pick<ListedSession, 'serverPid' | 'name' | 'created' | 'windows'>;

/** Notifications that change none of AnnouncedFacts. The frequent ones matter: output, a
 * window renamed after its command (automatic-rename), clients attaching or leaving (our
 * own output watchers among them), copy mode and pane or window selection (all asked
 * every time). */
const HARMLESS: ReadonlySet<string> = new Set([
  'output',
  'extended-output',
  'window-renamed',
  'unlinked-window-renamed',
  'client-session-changed',
  'client-detached',
  'layout-change',
  'pane-mode-changed',
  'window-pane-changed',
  'session-window-changed',
  'paste-buffer-changed',
  'paste-buffer-deleted',
  'subscription-changed',
  'message',
]);

/** True when a notification may have changed a kept fact (the kept facts are forgotten). */
export function mayChangeAnnouncedFacts(notification: string): boolean {
  return !HARMLESS.has(notification);
}

export function announcedFactsOf(s: ListedSession): AnnouncedFacts {
  return { serverPid: s.serverPid, name: s.name, created: s.created, windows: s.windows };
}
