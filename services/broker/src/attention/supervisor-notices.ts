/** A supervisor event as a notice for a person (pure): a watched pane waiting for input
 * (or for a human: a secret prompt's reason says so), a session that went away, and every
 * other event as a supervisor event. State changes that need nobody are not notices. */
import type { SupervisorEvent } from '@terminal-mcp/contract';
import type { NoticeInput } from './center.js';

export function noticeOfSupervisorEvent(event: SupervisorEvent): NoticeInput | null {
  const session = event.kind === 'session' ? event.target : null;
  const from = `supervisor:${event.watch_key}`.slice(0, 120);
  switch (event.event_type) {
    case 'attention_required':
      return {
        kind: /secret prompt/.test(event.reason) ? 'waiting_for_human' : 'waiting_for_input',
        level: 'warning',
        session,
        message: `${event.target}: ${event.reason}`,
        from,
      };
    case 'watch_target_missing':
      return { kind: 'session_died', level: 'warning', session, message: `${event.target}: ${event.reason}`, from };
    // An agent parked at its usage limit, resumed at the reset, or a park that ended
    // without a resume (the pane changed, the send was refused): a person may want to look.
    case 'limit_reached':
    case 'limit_resumed':
      return { kind: 'supervisor_event', level: 'info', session, message: `${event.target} ${event.event_type.replace('_', ' ')}: ${event.reason}`, from };
    case 'limit_cancelled':
      return { kind: 'supervisor_event', level: 'warning', session, message: `${event.target} limit park ended: ${event.reason}`, from };
    case 'error_detected':
    case 'stalled':
    case 'completed':
      return { kind: 'supervisor_event', level: event.event_type === 'completed' ? 'info' : 'warning', session, message: `${event.target} ${event.event_type.replace('_', ' ')}: ${event.reason}`, from };
    default:
      return null;
  }
}
