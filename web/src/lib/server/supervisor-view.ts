/** The supervisor page's data and form actions: the broker's supervisorDashboard rows,
 * each call made as the signed-in operator (the broker records them under that user). */
import { fail, type RequestEvent } from '@sveltejs/kit';
import type { ListActionsOutput, ListEventsOutput, ListParksOutput, ListWatchesOutput } from '@terminal-mcp/contract';
import type { UiError } from '../ui-error.js';
import { requireUser } from './auth.js';
import { broker } from './broker.js';
import { toUiError } from './failure.js';

export interface SupervisorPage {
  watches: ListWatchesOutput['watches'];
  events: ListEventsOutput['events'];
  actions: ListActionsOutput['actions'];
  /** Agents parked at a usage limit (open ones first), with their reset times. */
  parks: ListParksOutput['parks'];
}

export async function loadSupervisor(): Promise<SupervisorPage> {
  const [watches, events, actions, parks] = await Promise.all([
    broker().supervisorDashboard.listWatches.query({}),
    broker().supervisorDashboard.listEvents.query({ unacknowledged_only: true, limit: 50 }),
    broker().supervisorDashboard.listActions.query({ limit: 30 }),
    broker().supervisorDashboard.listParks.query({}),
  ]);
  return { watches: watches.watches, events: events.events, actions: actions.actions, parks: parks.parks };
}

const bad = (detail: string) => fail(400, { error: { code: 'INVALID_ARGUMENT', detail } satisfies UiError });
const positiveInt = (v: FormDataEntryValue | null) => (typeof v === 'string' && /^[1-9]\d{0,12}$/.test(v) ? Number(v) : null);

async function run<T>(fn: () => Promise<T>) {
  try {
    return await fn();
  } catch (err) {
    const { status, error } = toUiError(err);
    return fail(status, { error });
  }
}

export async function ackAction(event: RequestEvent) {
  requireUser(event);
  const id = positiveInt((await event.request.formData()).get('event_id'));
  if (id === null) return bad('event_id');
  return run(async () => ({ acked: (await broker().supervisorDashboard.ackEvent.mutate({ event_id: id })).event_id }));
}

export async function reviewAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = positiveInt(form.get('action_id'));
  const decision = form.get('decision');
  if (id === null) return bad('action_id');
  if (decision !== 'approve' && decision !== 'reject') return bad('decision');
  return run(async () => ({ reviewed: (await broker().supervisorDashboard.reviewAction.mutate({ action_id: id, decision })).state }));
}

export async function pauseAction(event: RequestEvent) {
  requireUser(event);
  const key = (await event.request.formData()).get('watch_key');
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) return bad('watch_key');
  return run(async () => ({ paused: (await broker().supervisorDashboard.pause.mutate({ watch_key: key })).watch_key }));
}

/** Resume a parked agent now, or cancel its park: the broker checks the pane and types
 * through its guarded input path; the page only names the park. */
export async function parkAction(event: RequestEvent) {
  requireUser(event);
  const form = await event.request.formData();
  const id = positiveInt(form.get('park_id'));
  const decision = form.get('decision');
  if (id === null) return bad('park_id');
  if (decision !== 'resume' && decision !== 'cancel') return bad('decision');
  return run(async () => {
    const park = decision === 'resume' ? await broker().supervisorDashboard.resumePark.mutate({ park_id: id }) : await broker().supervisorDashboard.cancelPark.mutate({ park_id: id });
    return { park: park.state };
  });
}
