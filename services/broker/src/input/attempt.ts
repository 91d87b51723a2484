/**
 * One input attempt, from call to audit outcome. Every tool that sends (text, keys, task,
 * bound text, run; gateway or dashboard) goes through `runInputAttempt`, in phases:
 *
 *  - replay (with an idempotency key): the name-level gates run first (a replay while
 *    input is off answers INPUT_DISABLED, not the old receipt); a replay and a key reused
 *    for another text are written to the audit log (BLOCKED: nothing sent; receipt
 *    REPLAYED, or error INVALID_ARGUMENT);
 *  - resolve → check: THE input authorization (authorize.ts): the caller's principal
 *    first (scopes, role, operator session), then the target is resolved (exactly, by
 *    name or binding) and every gate runs on facts read from tmux and /proc now (after up
 *    to INPUT_WAIT_SETTLE_MS for a busy foreground to wait for input: no type-ahead;
 *    terminal_run's command that tmux's facts admit reads /proc once, under the lock:
 *    `authorizeBeforeLock`). A dry run ends here (DRY_RUN, nothing sent);
 *  - audit-before: the attempt is written as PENDING *before* anything is sent; if that
 *    write fails, nothing is sent (AUDIT_UNAVAILABLE);
 *  - lock: the pane's lock (pane-lock.ts, owned by the composition root; waiting up to
 *    LOCK_WAIT_MS, else LEASE_BUSY), so two senders never interleave; under it the pane's
 *    identity is re-read (server pid, session id and creation time, pane id and pid must
 *    equal what was resolved or what a binding pinned, else IDENTITY_CHANGED) and the
 *    gates run again on the fresh facts (copy mode, foreground command, the pane's whole
 *    process tree, name) through the same authorization;
 *  - deliver → verify: the caller's `act` delivers (tmux checks the foreground once more
 *    at the instant of delivery, effects/tmux/deliver.ts) and judges what tmux answered
 *    (attempt-outcome.ts `classifyDelivery`);
 *  - finish: the outcome (SENT, FAILED, DELIVERY_UNKNOWN) replaces PENDING. A broker that
 *    dies before this leaves PENDING, reported DELIVERY_UNKNOWN at the next start
 *    (services.ts `recoverInterruptedInput`); nothing is ever re-sent.
 *
 * Every way an attempt ends is decided by one classifier (attempt-outcome.ts) and
 * written by one writer (`AttemptRecord.record`). Only an attempt that goes on to send
 * keeps a (redacted) preview of its text: refused, dry-run and replayed rows keep its
 * length and HMAC, never a preview.
 */
import { ALLOWED_KEYS, AppError, COPY_MODE_EXIT_KEY, type AuditDecision, type ErrorCode } from '@terminal-mcp/contract';
import type { AllowedDecision } from '../access/gate.js';
import { boundOrNull, type ResolvedTarget, type TargetRef } from '../access/target.js';
import type { InputCaller } from './input-deps.js';
import { authorizeInput, authorizeInputCaller } from './authorize.js';
import { hmacText, previewText } from '../audit/text-digest.js';
import { crashAfterAuditWriteIfRequested } from '../effects/fault-injection.js';
import { readPaneProcessTree } from '../effects/proc/process-tree.js';
import type { InputAttempt, StoredAttempt } from '../effects/store/audit-store.js';
import type { DeliveryReads } from '../reads/delivery-reads.js';
import { qualify } from '../nodes/node-names.js';
import type { AuthorizedForeground } from '../effects/tmux/deliver.js';
import type { PaneIdentityFacts } from '../effects/tmux/pane-identity.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import { samePane, type PaneIdentity } from '../policy/identity.js';
import { redactSecrets } from '../policy/redact.js';
import { reviewReason } from '../policy/review.js';
import { remoteSessionReader } from '../policy/credential-reader.js';
import { countCharacters, normalizeNewlines, type InputRequest } from '../policy/input.js';
import type { InputServices } from './services.js';
import { classifyAttemptError, type AttemptPhase } from './attempt-outcome.js';
import { withPaneLock } from './pane-lock.js';
import { routeInput } from './node-route.js';

/** How long a sender waits for another sender's lock on the same pane, else LEASE_BUSY. */
export const LOCK_WAIT_MS = 10_000;

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
  /** A reviewed send (the supervisor's queue, or review mode's queue): who proposed the
   * text and who approved it, recorded in the attempt's audit row (receipt_json) whatever
   * its outcome. */
  review?: { actionId?: number; approvalId?: number; proposedBy: string; approvedBy: string };
  /** Review mode may queue this attempt for a person (review-queue.ts) instead of
   * sending it; a tool that must answer with its outcome (task, run) is refused instead. */
  queueable?: boolean;
  /** The pane the attempt must reach (review mode's approved delivery: the one queued);
   * another pane under the name is IDENTITY_CHANGED. */
  pinned?: PaneIdentity;
}

export interface ActContext {
  target: ResolvedTarget;
  live: PaneIdentityFacts;
  decision: AllowedDecision;
  auditId: number;
  /** The target host's input services (delivery and process reads) and its reader's
   * delivery reads (reads/delivery-reads.ts): this host's, or a node's (node-route.ts). */
  services: InputServices;
  reads: DeliveryReads;
  /** The node the target is on, or undefined for this host. */
  node: string | undefined;
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
  | { kind: 'replayed'; auditId: number; attempt: StoredAttempt; fingerprintMatches: boolean }
  | { kind: 'queued'; auditId: number; target: ResolvedTarget; at: number };

/** How long a send waits for a busy foreground to start waiting for input before it is
 * refused (policy/input.ts, "no type-ahead"). A shell that is still starting, or an agent
 * CLI between two event-loop turns, is busy for a moment; a command that runs (`sleep 5`,
 * `make`) stays busy and is refused after this. */
export const INPUT_WAIT_SETTLE_MS = 2_500;
const INPUT_WAIT_POLL_MS = 50;

/** The target pane's process tree, read now (see effects/proc/process-tree.ts), on this
 * host or, given a node's services, on that node. */
export function readTargetProcesses(target: Pick<ResolvedTarget, 'identity' | 'currentCommand'>, services?: Pick<InputServices, 'processTree'>): Promise<PaneProcessFacts> {
  if (services) return services.processTree(target.identity.panePid, target.currentCommand);
  return readPaneProcessTree(target.identity.panePid, target.currentCommand);
}

/** The process tree a send is judged on: while the foreground is busy, read again until it
 * waits for input or INPUT_WAIT_SETTLE_MS pass. */
async function readSettledTargetProcesses(target: Pick<ResolvedTarget, 'identity' | 'currentCommand'>, services: Pick<InputServices, 'processTree'>): Promise<PaneProcessFacts> {
  const deadline = Date.now() + INPUT_WAIT_SETTLE_MS;
  for (;;) {
    const facts = await readTargetProcesses(target, services);
    if (facts.source !== 'proc' || facts.inputWait !== 'busy' || Date.now() >= deadline) return facts;
    await new Promise((resolve) => setTimeout(resolve, INPUT_WAIT_POLL_MS));
  }
}

/**
 * The gates before the lock. terminal_run's command reads /proc once, under the lock
 * (recheckUnderLock, where every gate runs again on it): a scan costs milliseconds, tens
 * on a loaded host, and it is the run's main cost. Before the lock its gates first judge
 * on tmux's foreground command; only a refusal there is judged again on the tree, so a
 * command is refused before its audit row exactly when the tree says so (tmux's name can
 * be a moment off: while a job that just ended still holds the terminal's foreground
 * group, tmux names the pane's start command, `env` say). What only the tree shows (a
 * guarded program below the shell, a reader that left the session, a busy shell) is
 * refused under the lock, BLOCKED, the row's preview dropped (audit-store `finish`).
 * Every other input judges on the tree here too: its refusals then keep the text off the
 * audit log altogether (a text may be a password typed at the wrong moment), and a dry
 * run answers on the tree.
 */
async function authorizeBeforeLock(caller: AttemptCaller, resolved: ResolvedTarget, spec: AttemptSpec): Promise<AllowedDecision> {
  if (spec.request.kind === 'command' && !spec.dryRun) {
    try {
      return authorizeInput(caller, resolved, { source: 'tmux', command: resolved.currentCommand }, spec.request);
    } catch {
      // Judged again on the tree below: its answer stands.
    }
  }
  const processes = await readSettledTargetProcesses(resolved, caller.deps.input);
  return authorizeInput(caller, resolved, processes, await withTerminalFacts(caller.deps.input, spec.request, resolved.identity.panePid, processes));
}

/** The secret entry's answer to a remote-session program (ssh) carries how that program
 * reads the terminal now (effects/proc/terminal-read.ts), read with the tree it is judged
 * on: its own password prompt, or a connected session (policy/credential-reader.ts).
 * Where it cannot be read (a node, another system) the facts stay absent and ssh is
 * refused. */
async function withTerminalFacts(services: InputServices, request: InputRequest, panePid: number, processes: PaneProcessFacts): Promise<InputRequest> {
  if (request.kind !== 'secret' || services.terminalRead === undefined) return request;
  const reader = remoteSessionReader(processes);
  if (reader === null) return request;
  return { ...request, terminal: await services.terminalRead(panePid, reader.pid) };
}

/** What the gates authorized under the lock, for tmux to check at the instant of delivery. */
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

/** Waits (bounded) while an earlier attempt with the same idempotency key is in flight. */
async function settledAttempt(services: InputServices, attempt: StoredAttempt): Promise<StoredAttempt> {
  const deadline = Date.now() + 2 * LOCK_WAIT_MS;
  let current = attempt;
  while (current.decision === 'PENDING' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    current = services.audit.getAttempt(current.id) ?? current;
  }
  return current;
}

type Receipt = { receipt?: string | null; receiptJson?: string | null };

/** An attempt's audit record: builds its rows and is THE one place its outcome is
 * written (`record`). Before the PENDING row exists, an outcome is a finished row of its
 * own; after, it finishes that row. */
interface AttemptRecord {
  /** The resolved target, once known (the row names its identity). */
  target: ResolvedTarget | null;
  /** The node the target is on (node-route.ts); the row names it with the session. */
  node: string | undefined;
  /** The PENDING row, once written. */
  auditId: number | null;
  /** audit-before: writes the PENDING row (claiming the idempotency key, if any), or
   * finds the earlier attempt holding the key. AUDIT_UNAVAILABLE when it cannot. */
  writePending(): { kind: 'written'; auditId: number } | { kind: 'existing'; fingerprint: string; attempt: StoredAttempt };
  /** THE outcome writer. Returns the row's id. */
  record(decision: Exclude<AuditDecision, 'PENDING'>, errorCode: string | null, receipt?: Receipt): number;
}

function attemptRecord(caller: AttemptCaller, spec: AttemptSpec, at: number, freshSince: number): AttemptRecord {
  const { deps } = caller;
  const services = deps.input;
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
    ? JSON.stringify({
        review: {
          ...(spec.review.actionId !== undefined ? { action_id: spec.review.actionId } : {}),
          ...(spec.review.approvalId !== undefined ? { approval_id: spec.review.approvalId } : {}),
          proposed_by: spec.review.proposedBy,
          approved_by: spec.review.approvedBy,
        },
      })
    : null;
  /** An act's receipt JSON and a reviewed send's review, in one object. */
  const withReview = (json: string | null | undefined): string | null => {
    if (json === null || json === undefined) return reviewJson;
    if (reviewJson === null) return json;
    try {
      return JSON.stringify({ ...(JSON.parse(reviewJson) as object), ...(JSON.parse(json) as object) });
    } catch {
      return json;
    }
  };
  const unavailable = (err: unknown) => {
    deps.log.error({ event: 'audit.write_failed', tool: spec.tool, err: (err as Error).message }, 'audit write failed; nothing sent');
    return new AppError('AUDIT_UNAVAILABLE', 'the audit log could not be written, so nothing was sent');
  };
  const row = (decision: AuditDecision, errorCode: string | null, receipt: Receipt = {}): InputAttempt => {
    const target = self.target;
    return {
      at,
      role: caller.role,
      actor: caller.actor,
      tool: spec.tool,
      // A node's session as `node:session` and `node:$id`, as reads on nodes are audited.
      sessionName: (target ? qualify(self.node, target.sessionName) : null) ?? spec.target.session ?? boundOrNull(services.bindings.get(spec.target.binding ?? '')),
      binding: spec.target.binding ?? null,
      serverPid: target?.identity.serverPid ?? null,
      sessionId: target ? qualify(self.node, target.identity.sessionId) : null,
      sessionCreated: target?.identity.created ?? null,
      paneId: target?.identity.paneId ?? null,
      panePid: target?.identity.panePid ?? null,
      decision,
      errorCode,
      ...digest,
      // A secret typed through the dashboard's secret entry is never previewed; a queued
      // input is (the reviewer reads the redacted preview).
      preview: (decision === 'PENDING' || decision === 'QUEUED') && text !== null && spec.request.kind !== 'secret' ? previewText(text) : null,
      keys: auditKeys(spec.request, decision === 'PENDING' || decision === 'QUEUED'),
      finishedAt: decision === 'PENDING' ? null : Date.now(),
      receipt: receipt.receipt ?? null,
      receiptJson: withReview(receipt.receiptJson),
    };
  };
  const self: AttemptRecord = {
    target: null,
    node: undefined,
    auditId: null,
    writePending() {
      try {
        if (!idem) return { kind: 'written', auditId: (self.auditId = services.audit.insertAttempt(row('PENDING', null))) };
        const claim = services.audit.claimIdempotencyKey(idem.scope, idem.key, idem.fingerprint, freshSince, row('PENDING', null));
        if (claim.kind === 'existing') return claim;
        return { kind: 'written', auditId: (self.auditId = claim.auditId) };
      } catch (err) {
        // A stopping broker refuses to begin an attempt (BROKER_UNAVAILABLE): recorded
        // FAILED, nothing sent; any other failure is the audit log's.
        if (err instanceof AppError && err.code === 'BROKER_UNAVAILABLE') throw err;
        throw unavailable(err);
      }
    },
    record(decision, errorCode, receipt = {}) {
      const auditId = self.auditId;
      if (auditId === null) {
        try {
          return services.audit.insertAttempt(row(decision, errorCode, receipt));
        } catch (err) {
          throw unavailable(err);
        }
      }
      try {
        const outcome = { decision, errorCode, finishedAt: Date.now(), receipt: receipt.receipt ?? null, receiptJson: withReview(receipt.receiptJson) };
        if (idem && (decision === 'BLOCKED' || decision === 'FAILED')) services.audit.finishAndReleaseKey(auditId, outcome, idem.scope, idem.key);
        else services.audit.finishAttempt(auditId, outcome);
      } catch (err) {
        // The row stays PENDING and is reported DELIVERY_UNKNOWN at the next start.
        deps.log.error({ event: 'audit.finish_failed', auditId, decision, err: (err as Error).message }, 'audit outcome could not be written');
      }
      return auditId;
    },
  };
  return self;
}

/** The phases, in order. Each either hands the next what it needs or ends the attempt;
 * every end goes through `record` (the one writer) with what the one classifier
 * (attempt-outcome.ts) says. */
export async function runInputAttempt<T>(
  origin: AttemptCaller,
  originSpec: AttemptSpec,
  act: (ctx: ActContext) => Promise<ActOutcome<T>>,
): Promise<AttemptResult<T>> {
  const services = origin.deps.input;
  const at = Date.now();
  // The row is written with the name as the caller gave it until the target is resolved.
  const log = attemptRecord(origin, originSpec, at, at - 24 * 3600 * 1000);
  let phase: AttemptPhase = 'before-audit';
  // After routing: the target host's parts (this host's, or a node's: node-route.ts) and
  // the target as that host names it.
  let caller = origin;
  let spec = originSpec;

  /** An error ended the attempt: recorded as classified, then answered or thrown. */
  const ended = (err: unknown): AttemptResult<T> => {
    const c = classifyAttemptError(err, phase);
    if (c.decision === null) throw c.error;
    const auditId = log.record(c.decision, c.error.code);
    // Something may have been typed: the caller is told exactly that (never "tmux is
    // unavailable" or "the node is unavailable", which say nothing was).
    if (c.decision === 'DELIVERY_UNKNOWN' && c.error.code !== 'DELIVERY_UNKNOWN') {
      throw new AppError('DELIVERY_UNKNOWN', `the input may or may not have reached the pane: ${c.error.message} (audit id ${auditId})`);
    }
    if (c.rethrow) throw err;
    return { kind: 'blocked', auditId, error: c.error, target: log.target, at };
  };
  /** An earlier attempt holds this idempotency key: this call sends nothing, and says so in
   * the audit log (a replay, or the key reused for another text or target). */
  const replayed = async (earlier: { fingerprint: string; attempt: StoredAttempt }): Promise<AttemptResult<T>> => {
    const fingerprintMatches = earlier.fingerprint === spec.idempotency?.fingerprint;
    const auditId = log.record('BLOCKED', fingerprintMatches ? null : 'INVALID_ARGUMENT', { receipt: fingerprintMatches ? 'REPLAYED' : null });
    return { kind: 'replayed', auditId, attempt: await settledAttempt(services, earlier.attempt), fingerprintMatches };
  };

  let resolved: ResolvedTarget;
  let decision: AllowedDecision;
  try {
    // route: which host (a refused caller learns nothing of the nodes).
    authorizeInputCaller(origin);
    const route = routeInput(origin, originSpec.target);
    caller = route.caller;
    spec = { ...originSpec, target: route.target };
    log.node = route.node;
    const { deps } = caller;
    // replay: answered only while the caller may still type and the name-level gates
    // still pass.
    if (spec.idempotency && !spec.dryRun) {
      authorizeInputCaller(caller);
      deps.access.checkInputName(spec.target, spec.request.kind);
      const earlier = services.audit.lookupIdempotencyKey(spec.idempotency.scope, spec.idempotency.key, at - 24 * 3600 * 1000);
      if (earlier) return await replayed(earlier);
    }
    // resolve (the caller first: a refused caller learns nothing of the target) → check.
    authorizeInputCaller(caller);
    resolved = log.target = await deps.access.inputTarget(spec.target, spec.request.kind);
    if (spec.pinned && !samePane(resolved.identity, spec.pinned)) {
      throw new AppError('IDENTITY_CHANGED', 'the session or pane was replaced since the input was queued for review: nothing was sent');
    }
    spec = { ...spec, request: await withShellFacts(deps.input, spec.request, resolved.identity) };
    decision = await authorizeBeforeLock(caller, resolved, spec);
    if (spec.dryRun) return { kind: 'dry_run', auditId: log.record('DRY_RUN', null), target: resolved, decision, at };
    // review: the one place review mode decides; an approved delivery carries `review`.
    const reason = spec.review?.approvalId !== undefined ? null : await needsReview(caller, resolved, spec);
    if (reason !== null) return queueForReview(caller, spec, resolved, reason, log, act, at, { caller: origin, spec: originSpec, node: route.node });

    // audit-before: nothing is sent unless this row is written.
    const pending = log.writePending();
    if (pending.kind === 'existing') return await replayed(pending);
    phase = 'audited';
    crashAfterAuditWriteIfRequested();
  } catch (err) {
    return ended(err);
  }

  // lock → re-check → deliver → verify → finish, one sender per pane.
  const auditId = log.auditId as number;
  const busy = (): AttemptResult<T> => ended(new AppError('LEASE_BUSY', 'another sender is typing into this pane'));
  // A pane is one pane of one server of one host: a node's key carries the node.
  const paneKey = `${resolved.identity.serverPid}:${resolved.identity.paneId}`;
  return withPaneLock(services.locks, log.node === undefined ? paneKey : `${log.node}/${paneKey}`, LOCK_WAIT_MS, busy, async () => {
    let ctx: ActContext;
    let outcome: ActOutcome<T>;
    try {
      ctx = { ...(await recheckUnderLock(caller, spec, resolved)), auditId, services: caller.deps.input, reads: caller.deps.reader.delivery, node: log.node };
      log.target = ctx.target;
      phase = 'deliver';
      outcome = await act(ctx);
    } catch (err) {
      return ended(err);
    }
    log.record(outcome.decision, outcome.errorCode, { receipt: outcome.receipt ?? null, ...(outcome.receiptJson ? { receiptJson: outcome.receiptJson } : {}) });
    return { kind: 'acted', auditId, target: ctx.target, outcome, at };
  });
}

/** A command line (terminal_run) or text sent with Enter carries what the decision judges
 * it with (policy/input.ts ShellFacts): the bash grammar, loaded on first use (a load that
 * fails is null, and the decision then refuses rather than passes), and the shell
 * integration's state of the pane's shell. Other input carries nothing. */
async function withShellFacts(services: InputServices, request: InputRequest, pane: PaneIdentity): Promise<InputRequest> {
  if (request.kind !== 'command' && !(request.kind === 'text' && request.submit === true)) return request;
  const parse = await services.shellParser().catch(() => null);
  const shells = services.shells;
  const stateOf = (shellPid: number | null) => (shells === undefined || shellPid === null ? null : shells.state({ paneId: pane.paneId, panePid: pane.panePid, shellPid }));
  return { ...request, shell: { parse, stateOf } };
}

/** Why this attempt needs a person's review (policy/review.ts), or null. Only MCP clients
 * (the gateway's role) are reviewed: the operator on the dashboard is the reviewer. A
 * tool that cannot wait for a person (task, run) is refused rather than sent unreviewed. */
async function needsReview(caller: AttemptCaller, target: ResolvedTarget, spec: AttemptSpec): Promise<string | null> {
  if (caller.role !== 'gateway') return null;
  const rules = caller.deps.config.input_policy;
  // The bash grammar is loaded only when risky review judges text (once per broker).
  const parse = rules.review === 'risky' && spec.request.kind !== 'keys' ? await caller.deps.input.shellParser().catch(() => null) : null;
  const reason = reviewReason(rules, target.sessionName, spec.request, parse);
  if (reason !== null && !spec.queueable) {
    throw new AppError(
      'INPUT_NOT_ALLOWED',
      `input to this session needs a person's review (${reason}), and ${spec.tool} cannot wait for one: nothing was sent`,
      'Send it with terminal_send_text or terminal_send_keys: they queue it for the operator, then terminal_wait_for_approval waits for the decision.',
    );
  }
  return reason;
}

/** review → QUEUED: nothing is sent. The approval re-enters this attempt as the approved
 * delivery, pinned to the pane resolved now; a rejection or an expiry is a BLOCKED row. */
function queueForReview<T>(
  caller: AttemptCaller,
  spec: AttemptSpec,
  resolved: ResolvedTarget,
  reason: string,
  log: AttemptRecord,
  act: (ctx: ActContext) => Promise<ActOutcome<T>>,
  at: number,
  origin: { caller: AttemptCaller; spec: AttemptSpec; node: string | undefined },
): AttemptResult<T> {
  const services = caller.deps.input;
  const auditId = log.record('QUEUED', null, { receiptJson: JSON.stringify({ review: { reason } }) });
  const request = spec.request;
  services.reviews.enqueue({
    id: auditId,
    tool: spec.tool,
    sessionName: qualify(origin.node, resolved.sessionName),
    paneId: resolved.identity.paneId,
    proposedBy: caller.actor,
    preview: request.kind === 'keys' ? null : redactSecrets(request.text).text,
    keys: request.kind === 'keys' ? [...request.keys] : null,
    reason,
    expiresAt: Date.now() + caller.deps.config.input_policy.review_timeout_seconds * 1000,
    async deliver(approvedBy) {
      const review = { approvalId: auditId, proposedBy: caller.actor, approvedBy };
      // Re-entered as the caller asked (routed again), pinned to the pane resolved now, with
      // the proposer's credential verified again: a client revoked while its input waited
      // is refused like any call it made now (issue 45).
      const proposer = origin.caller.reverify === undefined ? origin.caller : { ...origin.caller, principal: origin.caller.reverify() };
      const result = await runInputAttempt(proposer, { ...origin.spec, review, pinned: resolved.identity }, act);
      if (result.kind === 'acted') return { sent: result.outcome.decision === 'SENT', auditId: result.auditId, errorCode: result.outcome.errorCode };
      if (result.kind === 'blocked') return { sent: false, auditId: result.auditId, errorCode: result.error.code };
      return { sent: false, auditId: result.auditId, errorCode: 'INTERNAL' };
    },
    close(state, by) {
      const review = { approval_id: auditId, proposed_by: caller.actor, [state === 'rejected' ? 'rejected_by' : 'expired_by']: by };
      log.record('BLOCKED', null, { receipt: state.toUpperCase(), receiptJson: JSON.stringify({ review }) });
    },
  });
  // The person is told (dashboard, browser notification, the configured channels); the
  // notice names who proposed and where, never the text.
  caller.deps.attention?.raise({
    kind: 'approval_needed',
    level: 'warning',
    session: qualify(origin.node, resolved.sessionName),
    message: `${caller.actor} proposed input for ${qualify(origin.node, resolved.sessionName)} (approval ${auditId}): approve or reject it on the Review page`,
    from: 'broker:review',
  });
  return { kind: 'queued', auditId, target: resolved, at };
}

/** Whether `name` (tmux's foreground command) is a name of the foreground group's leader
 * in `tree`: its argv[0] (a login shell's `-` dropped, as tmux drops it), comm or exe. */
export function namesForegroundLeader(tree: Extract<PaneProcessFacts, { source: 'proc' }>, name: string): boolean {
  const leader = tree.processes.find((p) => p.pid === tree.foregroundGroup);
  if (!leader) return false;
  return [leader.argv0?.replace(/^-/, ''), leader.comm, leader.exe].includes(name);
}

/** Identity and gates again, under the lock, at the moment of acting. The identity (from
 * tmux) and the process tree (from /proc) are read at the same time, both under the lock:
 * the tree is read for the pane process resolved before the lock, and used only when the
 * identity read says it is still the pane's process (samePane); where there is no /proc,
 * the tree's answer is tmux's foreground command, taken from the identity read. */
async function recheckUnderLock(caller: AttemptCaller, spec: AttemptSpec, resolved: ResolvedTarget): Promise<Omit<ActContext, 'auditId' | 'services' | 'reads' | 'node'>> {
  const identity = caller.deps.reader.delivery.identity(resolved.identity.paneId);
  // The process tree as it is now, under the lock: what was there at resolve time may
  // have exec'd into something else since.
  const reading = readSettledTargetProcesses(resolved, caller.deps.input);
  // Not awaited when the identity changed (or could not be read): that answer stands.
  reading.catch(() => undefined);
  const replaced = () => new AppError('IDENTITY_CHANGED', 'the session or pane was replaced between resolving the target and sending: nothing was sent');
  let live = await identity;
  if (!live || !samePane(live, resolved.identity)) throw replaced();
  const read = await reading;
  // tmux names the foreground from the terminal's foreground group; while that group
  // changes hands (a job that just ended, before the shell takes the terminal back) it
  // names the pane's start command instead. The name goes to tmux's check at delivery,
  // so one that is not the foreground the settled tree shows is read again now.
  if (read.source === 'proc' && !namesForegroundLeader(read, live.currentCommand)) {
    live = await caller.deps.reader.delivery.identity(resolved.identity.paneId);
    if (!live || !samePane(live, resolved.identity)) throw replaced();
  }
  // A renamed session is re-judged under its new name, with the grant as it is now.
  const target = caller.deps.access.regrant({ ...resolved, sessionName: live.sessionName, currentCommand: live.currentCommand, inCopyMode: live.inMode });
  const processes: PaneProcessFacts = read.source === 'tmux' ? { source: 'tmux', command: live.currentCommand } : read;
  const decision = authorizeInput(caller, target, processes, await withTerminalFacts(caller.deps.input, spec.request, target.identity.panePid, processes));
  return { target, live, decision };
}
