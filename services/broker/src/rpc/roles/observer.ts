/** Everything the read-only observer may ask the broker: the operation table's rows whose
 * roles name `observer` (shared/contract/src/operations/table.ts; from-table.ts builds the
 * router). It must contain no procedure that changes tmux, git, grants, notes or policy:
 * not "refuses" — cannot name. A test lists it and fails on any mutation other than the
 * OAuth token procedures; another derives the rows from the observer's source. */
import { router } from '../trpc.js';
import { roleShape } from './from-table.js';

export const observerRouter = router(roleShape('observer'));
export type ObserverRouter = typeof observerRouter;
