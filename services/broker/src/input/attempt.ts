/**
 * One input attempt, from call to audit outcome. Every tool that sends (text, keys, task,
 * bound text; gateway or dashboard) goes through `runInputAttempt`:
 *
 *  0. with an idempotency key: the name-level gates run first (a replay while input is
 *     off answers INPUT_DISABLED, not the old receipt); a replay and a key reused for
 *     another text are written to the audit log (BLOCKED: nothing sent; receipt REPLAYED,
 *     or error INVALID_ARGUMENT);
 *  1. THE input authorization (authorize.ts): the caller's principal first (scopes, role,
 *     operator session), then the target is resolved (exactly, by name or binding) and
 *     every gate runs on facts read from tmux now; a refusal is written to the audit log
 *     as BLOCKED with its code;
 *  2. dry run: written as DRY_RUN, nothing sent;
 *  3. otherwise the attempt is written as PENDING *before* anything is sent; if that
 *     write fails, nothing is sent (AUDIT_UNAVAILABLE);
 *  4. the pane's lease is taken (waiting up to LEASE_WAIT_MS, else LEASE_BUSY), so two
 *     senders never interleave;
 *  5. under the lease the pane's identity is re-read: server pid, session id and
 *     creation time, pane id and pid must equal what was resolved (or what a binding
 *     pinned), else IDENTITY_CHANGED; the gates run again on the fresh facts (copy mode,
 *     foreground command, the pane's whole process tree from /proc, name), through the
 *     same authorization;
 *  6. the caller's `act` delivers; its outcome (SENT, FAILED, DELIVERY_UNKNOWN) replaces
 *     PENDING. A broker that dies before this leaves PENDING, reported DELIVERY_UNKNOWN at
 *     the next start; nothing is ever re-sent.
 *
 * Only an attempt that goes on to send keeps a (redacted) preview of its text: refused,
 * dry-run and replayed rows keep its length and HMAC, never a preview.
 */
import { randomBytes } from 'node:crypto';
import { ALLOWED_KEYS, AppError, COPY_MODE_EXIT_KEY, readAppErrorData, type AuditDecision, type ErrorCode } from '@terminal-mcp/contract';
import type { AllowedDecision } from '../access/gate.js';
import type { ResolvedTarget, TargetRef } from '../access/target.js';
import type { InputCaller } from './input-deps.js';
import { authorizeInput, authorizeInputCaller } from './authorize.js';
import { hmacText, previewText } from '../audit/text-digest.js';
import { crashAfterAuditWriteIfRequested } from '../effects/fault-injection.js';
import { readPaneProcessTree } from '../effects/proc/process-tree.js';
import type { InputAttempt, StoredAttempt } from '../effects/store/audit-store.js';
import type { AuthorizedForeground, DeliveryOutcome } from '../effects/tmux/deliver.js';
import type { PaneIdentityFacts } from '../effects/tmux/pane-identity.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import { samePane } from '../policy/identity.js';
import { countCharacters, normalizeNewlines, type InputRequest } from '../policy/input.js';
import type { InputServices } from './services.js';

/** How long a sender waits for another sender's lease on the same pane. */
export const LEASE_WAIT_MS = 10_000;
/** A lease ends by itself after this long (longer than any one attempt takes). */
export const LEASE_TTL_MS = 15_000;
const LEASE_POLL_MS = 25;

export type { AllowedDecision };

/** Who attempts: the caller's principal is authorized at delivery (authorize.ts). */
export type AttemptCaller = InputCaller;

export interface AttemptSpec {
  /** The public tool this attempt serves, e.g. terminal_send_text. */
  tool: string;
  target: TargetRef;
  request: InputRequest;
  dryRun: boolean;
  /** Claim this idempotency key with the attempt (terminal_send_task). */
  idempotency?: { scope: string; key: string; fingerprint: string };
  /** A reviewed send (the supervisor's queue): who proposed the text and who approved it,
   * recorded in the attempt's audit row (receipt_json) whatever its outcome. */
  review?: { actionId: number; proposedBy: string; approvedBy: string };
}

export interface ActContext {
  target: ResolvedTarget;
  live: PaneIdentityFacts;
  decision: AllowedDecision;
  auditId: number;
  services: InputServices;
}

export interface ActOutcome<T> {
  decision: Extract<AuditDecision, 'SENT' | 'FAILED' | 'DELIVERY_UNKNOWN'>;
  errorCode: ErrorCode | null;
  value: T;
  receipt?: string | null;
  receiptJson?: string | null;
}

export type AttemptResult<T> =
  | { kind: 'blocked'; auditId: number; error: AppError; target: ResolvedTarget | null; at: number }
  | { kind: 'dry_run'; auditId: number; target: ResolvedTarget; decision: AllowedDecision; at: number }
  | { kind: 'acted'; auditId: number; target: ResolvedTarget; outcome: ActOutcome<T>; at: number }
  | { kind: 'replayed'; auditId: number; attempt: StoredAttempt; fingerprintMatches: boolean };

/** Codes that mean "a gate said no": the attempt is BLOCKED. Anything else is FAILED. */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INPUT_DISABLED',
  'INPUT_NOT_ALLOWED',
  'UNAUTHENTICATED',
  'COMMAND_GUARDED',
  'FOREGROUND_NOT_ALLOWED',
  'PANE_IN_COPY_MODE',
  'TEXT_TOO_LONG',
  'TEXT_REJECTED',
  'KEY_NOT_ALLOWED',
  'CONFIRMATION_REQUIRED',
  'IDENTITY_CHANGED',
  'LEASE_BUSY',
  'BINDING_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'INVALID_ARGUMENT',
]);


function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const data = readAppErrorData(err);
  if (data) return new AppError(data.code, err instanceof Error ? err.message : undefined, data.hint);
  return new AppError('INTERNAL', 'the input attempt failed unexpectedly');
}

/** How long a send waits for a busy foreground to start waiting for input before it is
 * refused (policy/input.ts, "no type-ahead"). A shell that is still starting, or an agent
 * CLI between two event-loop turns, is busy for a moment; a command that runs (`sleep 5`,
 * `make`) stays busy and is refused after this. */
export const INPUT_WAIT_SETTLE_MS = 2_500;
const INPUT_WAIT_POLL_MS = 50;

/** The target pane's process tree, read now (see effects/proc/process-tree.ts). */
export function readTargetProcesses(target: Pick<ResolvedTarget, 'identity' | 'currentCommand'>): Promise<PaneProcessFacts> {
  return readPaneProcessTree(target.identity.panePid, target.currentCommand);
}

/** The process tree a send is judged on: while the foreground is busy, read again until it
 * waits for input or INPUT_WAIT_SETTLE_MS pass. */
async function readSettledTargetProcesses(target: Pick<ResolvedTarget, 'identity' | 'currentCommand'>): Promise<PaneProcessFacts> {
  const deadline = Date.now() + INPUT_WAIT_SETTLE_MS;
  for (;;) {
    const facts = await readTargetProcesses(target);
    if (facts.source !== 'proc' || facts.inputWait !== 'busy' || Date.now() >= deadline) return facts;
    await new Promise((resolve) => setTimeout(resolve, INPUT_WAIT_POLL_MS));
  }
}

/** The audit code of a failed delivery: the foreground changing under the send is a
 * refusal by tmux's last-instant check, anything else tmux failing. */
export function failureCode(outcome: Extract<DeliveryOutcome, { ok: false }>): ErrorCode {
  return outcome.changed ? 'IDENTITY_CHANGED' : 'TMUX_UNAVAILABLE';
}

/** What the gates authorized under the lease, for tmux to check at the instant of delivery. */
export function authorizedForeground(live: PaneIdentityFacts): AuthorizedForeground {
  return { panePid: live.panePid, currentCommand: live.currentCommand, inMode: live.inMode };
}

/** Stands for a key name that is not on the allowlist, where no preview is kept. */
const UNLISTED_KEY = '(not on the allowlist)';

/** What the audit row says about keys: allowlisted names as they are, anything else (it
 * is caller text) as a short redacted preview, or not at all when `preview` is off. */
function auditKeys(request: InputRequest, preview: boolean): string[] | null {
  if (request.kind !== 'keys') return null;
  const known = new Set<string>([...ALLOWED_KEYS, COPY_MODE_EXIT_KEY]);
  return request.keys.map((k) => (known.has(k) ? k : preview ? previewText(JSON.stringify(k), 40) : UNLISTED_KEY));
}

async function acquireLease(services: InputServices, paneKey: string, holder: string): Promise<boolean> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  for (;;) {
    if (services.leases.tryAcquire(paneKey, holder, Date.now(), LEASE_TTL_MS)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, LEASE_POLL_MS));
  }
}

/** Waits (bounded) while an earlier attempt with the same idempotency key is in flight. */
async function settledAttempt(services: InputServices, attempt: StoredAttempt): Promise<StoredAttempt> {
  const deadline = Date.now() + LEASE_WAIT_MS + LEASE_TTL_MS;
  let current = attempt;
  while (current.decision === 'PENDING' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    current = services.audit.getAttempt(current.id) ?? current;
  }
  return current;
}

export async function runInputAttempt<T>(
  caller: AttemptCaller,
  spec: AttemptSpec,
  act: (ctx: ActContext) => Promise<ActOutcome<T>>,
): Promise<AttemptResult<T>> {
  const { deps } = caller;
  const services = deps.input;
  const at = Date.now();
  const freshSince = at - 24 * 3600 * 1000;
  const idem = spec.idempotency;

  // The text is digested as received (before \r\n normalisation): that is what a
  // reviewer holding the original text can check the HMAC against. The preview is made
  // only for a row that goes on to send (PENDING).
  const text = spec.request.kind === 'keys' ? null : spec.request.text;
  const digest =
    text === null
      ? { textLength: null, textHmac: null }
      : { textLength: countCharacters(normalizeNewlines(text).text), textHmac: hmacText(services.auditKey(), text) };

  const reviewJson = spec.review
    ? JSON.stringify({ review: { action_id: spec.review.actionId, proposed_by: spec.review.proposedBy, approved_by: spec.review.approvedBy } })
    : null;
  let target: ResolvedTarget | null = null;
  const row = (decision: AuditDecision, errorCode: string | null, finished: boolean): InputAttempt => ({
    at,
    role: caller.role,
    actor: caller.actor,
    tool: spec.tool,
    sessionName: target?.sessionName ?? spec.target.session ?? services.bindings.get(spec.target.binding ?? '')?.sessionName ?? null,
    binding: spec.target.binding ?? null,
    serverPid: target?.identity.serverPid ?? null,
    sessionId: target?.identity.sessionId ?? null,
    sessionCreated: target?.identity.created ?? null,
    paneId: target?.identity.paneId ?? null,
    panePid: target?.identity.panePid ?? null,
    decision,
    errorCode,
    ...digest,
    preview: decision === 'PENDING' && text !== null && spec.request.kind !== 'secret' ? previewText(text) : null,
    keys: auditKeys(spec.request, decision === 'PENDING'),
    finishedAt: finished ? Date.now() : null,
    receipt: null,
    receiptJson: reviewJson,
  });
  const write = (attempt: InputAttempt): number => {
    try {
      return services.audit.insertAttempt(attempt);
    } catch (err) {
      deps.log.error({ event: 'audit.write_failed', tool: spec.tool, err: (err as Error).message }, 'audit write failed; nothing sent');
      throw new AppError('AUDIT_UNAVAILABLE', 'the audit log could not be written, so nothing was sent');
    }
  };
  const finish = (auditId: number, decision: AuditDecision, errorCode: string | null, extra: { receipt?: string | null; receiptJson?: string | null } = {}) => {
    try {
      const outcome = { decision, errorCode, finishedAt: Date.now(), ...extra };
      if (idem && (decision === 'BLOCKED' || decision === 'FAILED')) services.audit.finishAndReleaseKey(auditId, outcome, idem.scope, idem.key);
      else services.audit.finishAttempt(auditId, outcome);
    } catch (err) {
      // The row stays PENDING and is reported DELIVERY_UNKNOWN at the next start.
      deps.log.error({ event: 'audit.finish_failed', auditId, decision, err: (err as Error).message }, 'audit outcome could not be written');
    }
  };
  /** A refusal or failure before anything was sent: recorded, then returned or thrown. */
  const refused = (err: unknown): AttemptResult<T> => {
    const app = toAppError(err);
    if (app.code === 'AUDIT_UNAVAILABLE') throw app;
    if (!REFUSALS.has(app.code)) {
      write(row('FAILED', app.code, true));
      throw err;
    }
    return { kind: 'blocked', auditId: write(row('BLOCKED', app.code, true)), error: app, target, at };
  };
  /** An earlier attempt holds this idempotency key: this call sends nothing, and says so in
   * the audit log (a replay, or the key reused for another text or target). */
  const replayed = async (earlier: { fingerprint: string; attempt: StoredAttempt }): Promise<AttemptResult<T>> => {
    const fingerprintMatches = idem !== undefined && earlier.fingerprint === idem.fingerprint;
    const auditId = write({ ...row('BLOCKED', fingerprintMatches ? null : 'INVALID_ARGUMENT', true), receipt: fingerprintMatches ? 'REPLAYED' : null });
    return { kind: 'replayed', auditId, attempt: await settledAttempt(services, earlier.attempt), fingerprintMatches };
  };

  // 0. A replay is answered only while the caller may still type and the name-level gates
  // still pass.
  if (idem && !spec.dryRun) {
    try {
      authorizeInputCaller(caller);
      deps.access.checkInputName(spec.target, spec.request.kind);
    } catch (err) {
      return refused(err);
    }
    const earlier = services.audit.lookupIdempotencyKey(idem.scope, idem.key, freshSince);
    if (earlier) return replayed(earlier);
  }

  // 1. Authorize (the caller first: a refused caller learns nothing of the target),
  // resolve, authorize on the target's facts.
  let decision: AllowedDecision;
  try {
    authorizeInputCaller(caller);
    target = await deps.access.inputTarget(spec.target, spec.request.kind);
    decision = authorizeInput(caller, target, await readSettledTargetProcesses(target), spec.request);
  } catch (err) {
    return refused(err);
  }
  const resolved = target;

  // 2. Dry run.
  if (spec.dryRun) return { kind: 'dry_run', auditId: write(row('DRY_RUN', null, true)), target: resolved, decision, at };

  // 3. Written before acting.
  let auditId: number;
  if (idem) {
    let claim;
    try {
      claim = services.audit.claimIdempotencyKey(idem.scope, idem.key, idem.fingerprint, freshSince, row('PENDING', null, false));
    } catch (err) {
      deps.log.error({ event: 'audit.write_failed', tool: spec.tool, err: (err as Error).message }, 'audit write failed; nothing sent');
      throw new AppError('AUDIT_UNAVAILABLE', 'the audit log could not be written, so nothing was sent');
    }
    if (claim.kind === 'existing') return replayed(claim);
    auditId = claim.auditId;
  } else {
    auditId = write(row('PENDING', null, false));
  }
  crashAfterAuditWriteIfRequested();

  // 4. One sender per pane.
  const paneKey = `${resolved.identity.serverPid}:${resolved.identity.paneId}`;
  const holder = `${process.pid}:${auditId}:${randomBytes(6).toString('hex')}`;
  if (!(await acquireLease(services, paneKey, holder))) {
    finish(auditId, 'BLOCKED', 'LEASE_BUSY');
    return { kind: 'blocked', auditId, error: new AppError('LEASE_BUSY', 'another sender is typing into this pane'), target: resolved, at };
  }
  try {
    // 5. Identity and gates again, at the moment of acting.
    let live: PaneIdentityFacts | null;
    let fresh: ResolvedTarget;
    try {
      live = await services.delivery.readIdentity(resolved.identity.paneId);
      if (!live || !samePane(live, resolved.identity)) {
        throw new AppError('IDENTITY_CHANGED', 'the session or pane was replaced between resolving the target and sending: nothing was sent');
      }
      // A renamed session is re-judged under its new name, with the grant as it is now.
      fresh = deps.access.regrant({ ...resolved, sessionName: live.sessionName, currentCommand: live.currentCommand, inCopyMode: live.inMode });
      // The process tree as it is now, under the lease: what was there at resolve time may
      // have exec'd into something else since.
      decision = authorizeInput(caller, fresh, await readSettledTargetProcesses(fresh), spec.request);
    } catch (err) {
      const app = toAppError(err);
      finish(auditId, REFUSALS.has(app.code) ? 'BLOCKED' : 'FAILED', app.code);
      if (!REFUSALS.has(app.code)) throw err;
      return { kind: 'blocked', auditId, error: app, target: resolved, at };
    }

    // 6. Deliver.
    let outcome: ActOutcome<T>;
    try {
      outcome = await act({ target: fresh, live, decision, auditId, services });
    } catch (err) {
      // Something failed mid-delivery: bytes may or may not have reached the pane.
      finish(auditId, 'DELIVERY_UNKNOWN', toAppError(err).code);
      throw err;
    }
    finish(auditId, outcome.decision, outcome.errorCode, { receipt: outcome.receipt ?? null, receiptJson: outcome.receiptJson ?? reviewJson });
    return { kind: 'acted', auditId, target: fresh, outcome, at };
  } finally {
    services.leases.release(paneKey, holder);
  }
}
