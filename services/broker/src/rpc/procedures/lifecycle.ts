/**
 * Session lifecycle: start a session from a launch profile, close or restart one a profile
 * started (identity-pinned, dry run unless confirmed), resize a window, forget a gone
 * session (a registry tombstone); and for the
 * dashboard the profiles and the recovery state of managed sessions. Every action is the
 * `lifecycle` effect (the door refuses a principal without it; the use case asks the gate
 * again at the effect), off until permissions.session_lifecycle, and audited like input
 * (lifecycle/). The observer serves none of these.
 */
import { sessionPinnedInputSchema, sessionResizeInputSchema, sessionStartInputSchema } from '@terminal-mcp/contract';
import { closeSession } from '../../lifecycle/close-session.js';
import { forgetSession } from '../../lifecycle/forget-session.js';
import { listLaunchProfiles, listManagedSessions } from '../../lifecycle/managed-views.js';
import { resizeSession } from '../../lifecycle/resize-session.js';
import { restartSession } from '../../lifecycle/restart-session.js';
import { startSession } from '../../lifecycle/start-session.js';
import { operatorProcedure } from '../operator.js';
import { gatewayProcedure } from '../trpc.js';

const gatewayLifecycle = gatewayProcedure.meta({ effect: 'lifecycle' });
const operatorLifecycle = operatorProcedure.meta({ effect: 'lifecycle' });

export const lifecycle = {
  start: gatewayLifecycle.input(sessionStartInputSchema).mutation(({ ctx, input }) => startSession(ctx, input)),
  close: gatewayLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => closeSession(ctx, input)),
  restart: gatewayLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => restartSession(ctx, input)),
  resize: gatewayLifecycle.input(sessionResizeInputSchema).mutation(({ ctx, input }) => resizeSession(ctx, input)),
  /** A gone session's registry rows become tombstones (the registry-cleanup rules). */
  forget: gatewayLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => forgetSession(ctx, input)),
};

/** The dashboard's "New session", close and restart buttons, the full view's resize, and
 * the cards' recovery state. */
export const dashboardLifecycle = {
  profiles: operatorProcedure.query(({ ctx }) => listLaunchProfiles(ctx.deps.config)),
  managed: operatorProcedure.query(({ ctx }) => listManagedSessions(ctx.deps)),
  start: operatorLifecycle.input(sessionStartInputSchema).mutation(({ ctx, input }) => startSession(ctx, input)),
  close: operatorLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => closeSession(ctx, input)),
  restart: operatorLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => restartSession(ctx, input)),
  /** The full view's window size. */
  resize: operatorLifecycle.input(sessionResizeInputSchema).mutation(({ ctx, input }) => resizeSession(ctx, input)),
  /** The Gone sessions page's Remove, after its confirmation step. */
  forget: operatorLifecycle.input(sessionPinnedInputSchema).mutation(({ ctx, input }) => forgetSession(ctx, input)),
};
