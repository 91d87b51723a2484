/**
 * The dashboard's parked agents: list the open parks and the latest ended ones, resume one
 * now (the same checks and the same guarded send as the scheduled resume, limit-parks.ts),
 * or cancel it so nothing is typed at the reset.
 */
import { AppError, type LimitPark, type ListParksOutput } from '@terminal-mcp/contract';
import { parkView } from './views.js';
import type { SupervisorCaller } from './watches.js';

/** How many parks the dashboard lists (open ones first). */
const LISTED = 50;

export function listParks(c: SupervisorCaller): ListParksOutput {
  const { store } = c;
  const rows = store.listParks({ limit: LISTED });
  const open = rows.filter((p) => p.state === 'parked' || p.state === 'resuming');
  const ended = rows.filter((p) => !(p.state === 'parked' || p.state === 'resuming'));
  return { parks: [...open, ...ended].map((p) => parkView(store, p)).filter((p): p is LimitPark => p !== undefined) };
}

function viewOrMissing(c: SupervisorCaller, id: number): LimitPark {
  const row = c.store.park(id);
  const view = row === undefined ? undefined : parkView(c.store, row);
  if (view === undefined) throw new AppError('NOT_FOUND', 'no parked agent with that id');
  return view;
}

/** Resumes now: a park no longer `parked` is answered as it is (nothing typed twice). */
export async function resumeParkNow(c: SupervisorCaller, id: number): Promise<LimitPark> {
  viewOrMissing(c, id);
  await c.engine.parks.resumeNow(id, c.actor);
  return viewOrMissing(c, id);
}

export function cancelPark(c: SupervisorCaller, id: number): LimitPark {
  viewOrMissing(c, id);
  c.engine.parks.cancel(id, c.actor);
  return viewOrMissing(c, id);
}
