/**
 * tRPC is initialised once, here. The error formatter is the single place where broker
 * errors become wire data: our `AppError` codes travel in `data.app`; schema failures
 * become INVALID_ARGUMENT naming only the fields (never the values, which may be hostile);
 * anything unexpected becomes INTERNAL with a correlation id, and its details go to the log
 * only — never a path, SQL or argv to a caller.
 */
import { randomUUID } from 'node:crypto';
import { initTRPC, TRPCError } from '@trpc/server';
import { AppError, ERROR_SPECS, readAppErrorData, type AppErrorData, type SocketRole } from '@terminal-mcp/contract';
import { refuseEffect, type Effect } from '../policy/authority.js';
import type { BrokerContext } from './context.js';
import { withOperator } from './operator-session.js';
import { recordRefusedLifecycleCall } from '../lifecycle/lifecycle-audit.js';
import { storeFailureOf } from './store-failure.js';

/**
 * What a procedure does, for the one authorization decision (policy/authority.ts
 * `refuseEffect`), made by the base of every procedure before anything runs:
 * - `read`, `write`, `input`: the caller's principal must allow that effect;
 * - `delivery`: types into a pane. The door does not decide: the input attempt does, at the
 *   moment of delivery (input/authorize.ts), so a refusal is audited and answered like
 *   every other input refusal, and no path to a pane can skip it;
 * - `sign-in`: part of authenticating (login, OAuth registration and tokens): anyone the
 *   socket admits.
 * Undeclared: a query or subscription reads, a mutation writes (fail closed).
 */
export type ProcedureEffect = Effect | 'delivery' | 'sign-in';

/** Every procedure names the roles whose socket may serve it (see `servedTo`) and,
 * unless it only reads, its effect. The role files must agree: roles.test.ts fails when a
 * role serves a procedure not built for it, and pins each procedure's effect. */
export interface ProcedureMeta {
  /** Set by `servedTo` for every procedure (optional only so `.meta({ effect })` can add
   * the effect to a base: tRPC merges meta). */
  roles?: readonly SocketRole[];
  effect?: ProcedureEffect;
}

/** The effect a procedure is judged by (see ProcedureEffect). */
export function effectOf(meta: ProcedureMeta | undefined, type: 'query' | 'mutation' | 'subscription'): ProcedureEffect {
  return meta?.effect ?? (type === 'mutation' ? 'write' : 'read');
}

/** Paths come from the caller: logged only as a short run of path characters. */
const loggablePath = (path: string | undefined) => (path ?? '').replace(/[^\w.-]/g, '?').slice(0, 120);

function zodIssuePaths(cause: unknown): string[] {
  const issues = (cause as { issues?: unknown })?.issues;
  if (!Array.isArray(issues)) return [];
  return issues
    .map((i: { path?: unknown[] }) => (Array.isArray(i.path) ? i.path.map(String).join('.') : ''))
    .filter((p) => p.length > 0)
    .slice(0, 10);
}

/** tRPC's own refusals of a request it could not read (raised by its HTTP adapter before
 * any procedure runs, so they carry no AppError): each its 4xx. */
const REFUSED_REQUESTS: Partial<Record<TRPCError['code'], { http: number; message: string; hint: string }>> = {
  PAYLOAD_TOO_LARGE: { http: 413, message: 'request body too large', hint: 'Send a smaller request: the socket refuses bodies over its size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, message: 'request body must be application/json', hint: 'Send the call as JSON with Content-Type: application/json.' },
  METHOD_NOT_SUPPORTED: { http: 405, message: 'method not allowed for this procedure', hint: 'Queries are GET, mutations POST.' },
  UNPROCESSABLE_CONTENT: { http: 422, message: 'request not understood', hint: 'Send a well-formed tRPC call.' },
};

const t = initTRPC.context<BrokerContext>().meta<ProcedureMeta>().create({
  errorFormatter({ shape, error, ctx, path }) {
    let app: AppErrorData;
    let message: string;
    let httpStatus: number | undefined;
    const known = readAppErrorData(error.cause);
    const refusedRequest = known ? undefined : REFUSED_REQUESTS[error.code];
    if (refusedRequest) {
      // The request itself was refused before any procedure ran (too large, not JSON, a
      // wrong method): the caller's fault, answered with its own 4xx, never INTERNAL/500.
      app = { code: 'INVALID_ARGUMENT', hint: refusedRequest.hint };
      message = refusedRequest.message;
      httpStatus = refusedRequest.http;
      ctx?.deps.log.warn({ event: 'security.invalid_request', role: ctx.role, path: loggablePath(path), refused: error.code }, 'unreadable request refused');
    } else if (known) {
      app = known;
      message = error.message;
    } else if (error.code === 'BAD_REQUEST' || error.code === 'PARSE_ERROR') {
      const fields = zodIssuePaths(error.cause);
      app = { code: 'INVALID_ARGUMENT', hint: ERROR_SPECS.INVALID_ARGUMENT.hint };
      message = fields.length ? `invalid input: ${fields.join(', ')}` : 'invalid input';
      ctx?.deps.log.warn({ event: 'security.invalid_request', role: ctx.role, path, fields }, 'schema-invalid request refused');
    } else if (error.code === 'NOT_FOUND' && !error.cause) {
      app = { code: 'NOT_FOUND', hint: 'No such procedure for this role.' };
      message = 'no such procedure';
      // A client only ever calls what its role serves: anything else is a probe (OpenSSH's
      // monitor treats an unknown request as fatal). Logged like a schema failure.
      ctx?.deps.log.warn({ event: 'security.unknown_procedure', role: ctx.role, path: loggablePath(path) }, 'unknown procedure refused');
    } else {
      const correlationId = randomUUID();
      app = { code: 'INTERNAL', hint: ERROR_SPECS.INTERNAL.hint, correlationId };
      message = `internal error (correlation id ${correlationId})`;
      ctx?.deps.log.error({ event: 'internal_error', correlationId, path, err: error.cause ?? error }, 'procedure failed');
    }
    return {
      message,
      code: shape.code,
      data: { code: shape.data.code, httpStatus: httpStatus ?? ERROR_SPECS[app.code].http, path: shape.data.path, app },
    };
  },
});

/** An `AppError` thrown deep inside (reader, adapter) reaches tRPC as an unknown error,
 * i.e. INTERNAL_SERVER_ERROR/500. Re-raise it with the tRPC code of its `ErrorCode`, so the
 * HTTP status a client sees agrees with `data.app.code`. */
const appErrorsKeepTheirStatus = t.middleware(async ({ ctx, path, next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const app = readAppErrorData(result.error.cause);
    if (app && app.code !== 'INTERNAL') {
      throw new TRPCError({ code: ERROR_SPECS[app.code].trpc, message: result.error.message, cause: result.error.cause });
    }
    // A full disk or an unusable store is not a bug: its own code (rpc/store-failure.ts),
    // the underlying error in the log only.
    const storage = app ? null : storeFailureOf(result.error.cause);
    if (storage) {
      ctx.deps.log.error({ event: 'store.write_failed', code: storage.code, path: loggablePath(path), err: result.error.cause }, 'a store could not be written');
      throw new TRPCError({ code: ERROR_SPECS[storage.code].trpc, message: storage.message, cause: storage });
    }
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * The base of every procedure: it names the roles that serve it and refuses a call that
 * arrives on any other role's socket (tRPC's `authedProcedure` pattern), then makes the
 * one authorization decision for the procedure's effect (see ProcedureEffect). The role
 * files (rpc/roles/*.ts) are the privilege table; this check makes a row added to the
 * wrong table fail closed instead of granting silently.
 */
export function servedTo(...roles: [SocketRole, ...SocketRole[]]) {
  return t.procedure
    .meta({ roles })
    .use(appErrorsKeepTheirStatus)
    .use(async ({ ctx, path, meta, type, next, getRawInput }) => {
      const result = await next();
      // A lifecycle call refused here (its effect, an operator session) or by its schema
      // is audited BLOCKED like one refused inside the use case (lifecycle-audit.ts).
      if (!result.ok && effectOf(meta, type) === 'lifecycle' && roles.includes(ctx.role)) {
        const app = readAppErrorData(result.error.cause);
        const door = app === undefined ? (result.error.code === 'BAD_REQUEST' ? 'INVALID_ARGUMENT' : null) : raisedAtDoor(result.error.cause) ? app.code : null;
        if (door !== null) recordRefusedLifecycleCall(withOperator(ctx), path, await getRawInput().catch(() => undefined), door);
      }
      return result;
    })
    .use(({ ctx, path, meta, type, next }) => {
      if (!roles.includes(ctx.role)) {
        ctx.deps.log.warn({ event: 'security.wrong_role', role: ctx.role, path: loggablePath(path) }, 'procedure called on a role that does not serve it');
        raise(new AppError('FORBIDDEN', 'this procedure is not served to this role'));
      }
      // web.sock: the operator behind the session token, when one came with the call.
      const acting = withOperator(ctx);
      const effect = effectOf(meta, type);
      if (effect === 'sign-in' || effect === 'delivery') return next({ ctx: acting });
      if (acting.role === 'web' && effect !== 'read' && acting.principal.kind !== 'operator') {
        ctx.deps.log.warn({ event: 'security.operator_session_refused', role: ctx.role, path: loggablePath(path), token: ctx.operatorToken === undefined ? 'absent' : 'invalid' }, 'operator session refused');
        raiseAtDoor(new AppError('UNAUTHENTICATED', 'sign in to the dashboard first'));
      }
      const refusal = refuseEffect(acting.principal, effect);
      if (refusal) {
        ctx.deps.log.warn({ event: 'security.effect_refused', role: ctx.role, path: loggablePath(path), effect, actor: acting.actor }, 'effect refused for this caller');
        raiseAtDoor(new AppError(refusal.code, refusal.message, refusal.hint));
      }
      return next({ ctx: acting });
    });
}

/** The MCP gateway's own procedures (input, bindings, waits, its input audit). */
export const gatewayProcedure = servedTo('gateway');
/** The observer's own procedures (project sources, OAuth authorization server). */
export const observerProcedure = servedTo('observer');
/** The dashboard's own procedures (sign-in, live output). Those that change something or
 * reveal per-user data are `operatorProcedure`s (rpc/operator.ts). */
export const webProcedure = servedTo('web');

/** Marks an error the door raised (not the use case, which audits its own refusals). */
const RAISED_AT_DOOR = Symbol('raised at the procedure door');
function raiseAtDoor(appError: AppError): never {
  Object.defineProperty(appError, RAISED_AT_DOOR, { value: true });
  raise(appError);
}
const raisedAtDoor = (err: unknown): boolean => typeof err === 'object' && err !== null && RAISED_AT_DOOR in err;

/** Throw our error with the matching tRPC code so HTTP status and data agree. */
export function raise(appError: { code: keyof typeof ERROR_SPECS; message: string; hint: string }): never {
  throw new TRPCError({ code: ERROR_SPECS[appError.code].trpc, message: appError.message, cause: appError });
}
