/**
 * Waiting for a session's status (gateway and web): `forState` returns as soon as the
 * status enters one of the wanted states, or PENDING with a resume token after at most
 * 20 s; `resume` continues a PENDING wait. Queries: they change nothing (the token map
 * is the broker's bookkeeping, not tmux or policy state). Read-gated on every evaluation
 * like `sessions.status`. The request's signal aborts when the client disconnects, which
 * ends the wait and detaches its watcher (live/wait-for-state.ts). A `node:session` waits
 * through that node's reader (nodes/node-waits.ts).
 */
import {
  resumeWaitInputSchema,
  waitForStateInputSchema,
  WAIT_LIMITS,
  type SessionStatus,
  type WaitResult,
} from '@terminal-mcp/contract';
import type { SessionIdentity } from '../../policy/identity.js';
import { waitForState, type WaitOutcome, type WaitTarget } from '../../live/wait-for-state.js';
import { NODE_WAIT_TICK_MS, NO_NODE_PANE_WATCH } from '../../nodes/node-waits.js';
import type { BrokerContext } from '../context.js';
import { gatewayProcedure } from '../trpc.js';

const timeoutMs = (seconds: number | undefined) => Math.round((seconds ?? WAIT_LIMITS.defaultTimeoutSeconds) * 1000);

/** `target.name` as the caller wrote it (`node:session` for a node). */
function run(ctx: BrokerContext, target: WaitTarget, states: readonly SessionStatus[], seconds: number | undefined, signal?: AbortSignal): Promise<WaitOutcome> {
  const { host, ref: session } = ctx.deps.hosts.resolveSession(target.name);
  const onNode = host.node !== undefined;
  return host.on(async () => {
    const out = await waitForState({
      reader: host.reader,
      caller: { role: ctx.role, actor: ctx.actor },
      paneWatch: onNode ? NO_NODE_PANE_WATCH : ctx.deps.live.paneWatch,
      ...(onNode && { fallbackTickMs: NODE_WAIT_TICK_MS }),
      target: { ...target, name: session },
      states,
      timeoutMs: timeoutMs(seconds),
      signal,
    });
    // The answer names the session as the caller did (`node:session`, `node:$id`).
    return onNode ? { ...out, status: host.named(out.status) } : out;
  });
}

function result(out: WaitOutcome, states: readonly SessionStatus[], token: { token: string; expiresAt: number } | null): WaitResult {
  return {
    state: out.matched ? out.status.status : 'PENDING',
    session: out.status.session,
    session_id: out.status.session_id,
    states: [...states],
    status: out.status,
    waited_ms: Math.round(out.waitedMs),
    resume_token: token?.token ?? null,
    resume_expires_at: token === null ? null : new Date(token.expiresAt).toISOString(),
  };
}

/** Dedupes the wanted states, keeping the caller's order. */
const uniqueStates = (states: readonly SessionStatus[]) => [...new Set(states)];

export const wait = {
  forState: gatewayProcedure.input(waitForStateInputSchema).query(async ({ ctx, input, signal }) => {
    const states = uniqueStates(input.states);
    // A `binding` input resolves here to { name, identity } of the bound session.
    const target: WaitTarget = { name: input.session, pane: input.pane };
    const out = await run(ctx, target, states, input.timeout_s, signal);
    if (out.matched) return result(out, states, null);
    const identity: SessionIdentity = out.identity;
    const token = ctx.deps.live.resumeTokens.issue({ name: target.name, pane: target.pane, identity, states, role: ctx.role, client: ctx.actor });
    return result(out, states, token);
  }),

  resume: gatewayProcedure.input(resumeWaitInputSchema).query(async ({ ctx, input, signal }) => {
    const tokens = ctx.deps.live.resumeTokens;
    const pending = tokens.lookup(input.resume_token, ctx.role, ctx.actor);
    const out = await run(ctx, { name: pending.name, pane: pending.pane, identity: pending.identity }, pending.states, input.timeout_s, signal);
    if (out.matched) {
      tokens.retire(input.resume_token);
      return result(out, pending.states, null);
    }
    return result(out, pending.states, tokens.renew(input.resume_token));
  }),
};
