/**
 * terminal_session_forget (and the dashboard's Gone sessions page): tombstone the registry
 * rows of one gone session, by the name and session id the caller saw. The rules are the
 * registry-cleanup CLI's (policy/registry-cleanup.ts): only a MISSING or KILLED row, never
 * one whose name is alive now in tmux, protected (session_lifecycle.protected_sessions), or
 * holding a conversation id or operator notes. The CLI's minimum age is for a bulk sweep;
 * here a person names the one session, so it does not apply. The plan is derived again
 * inside the write transaction, so a session that came back meanwhile is refused. Audited
 * like every lifecycle call (a dry run without `confirm: true`); the rows stay as DELETED
 * tombstones recording who and when.
 */
import { AppError, type SessionForgetOutput, type SessionPinnedInput } from '@terminal-mcp/contract';
import { LOCAL_NODE } from '../config/nodes-schema.js';
import { qualify, splitQualified } from '../policy/qualified-name.js';
import { GUARD_REASONS, planRegistryCleanup, registryName, type CleanupCriteria, type RegistryRecord } from '../policy/registry-cleanup.js';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { requireLifecycle } from './lifecycle-gates.js';

const TOOL = 'terminal_session_forget';

export function forgetSession(caller: LifecycleCaller, input: SessionPinnedInput): Promise<SessionForgetOutput> {
  return withLifecycleAudit(caller, TOOL, async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    // A bare name or `local:name` is this host's; `node:name` a node's, as everywhere.
    const { node, session } = splitQualified(input.session, LOCAL_NODE);
    const name = qualify(node, session);
    // The gates of a send that a gone session can still be judged by (names, readability,
    // patterns or the operator's grant for that very session): a client forgets only what
    // it could have typed into, so it cannot erase the record of a session it may not act
    // on. Judged before the rules below answer, so a refusal does not tell whether the
    // session exists. (A node's session: this host's gate does not judge its names; the
    // registry row is all this touches.)
    if (node === null) {
      const row = caller.deps.lifecycle.registry.list().find((r) => registryName(r) === name && qualify(r.node, r.sessionId) === input.expect_session_id);
      caller.deps.access.checkInputGone(session, row && { serverPid: row.serverPid, sessionId: row.sessionId, created: row.sessionCreated }, 'text');
    }
    const isTarget = (r: RegistryRecord) => registryName(r) === name && qualify(r.node, r.sessionId) === input.expect_session_id;
    const criteria = async (): Promise<CleanupCriteria> => ({
      liveNames: new Set((await caller.deps.tmux.listSessions()).map((s) => s.name)),
      protectedNames: new Set(caller.deps.config.session_lifecycle.protected_sessions),
      minAgeDays: 0,
      now: Date.now(),
    });
    /** The rows to tombstone, or the refusal the cleanup's guards give. */
    const decide = (rows: readonly RegistryRecord[], c: CleanupCriteria): RegistryRecord[] => {
      const plan = planRegistryCleanup(rows, c);
      const held = plan.needsReview.find(({ row }) => isTarget(row));
      if (held) throw new AppError('FORBIDDEN', `${name} is kept: ${GUARD_REASONS[held.guard]}`, 'The registry-cleanup rules keep it; clear its notes or conversation id with terminal-mcp-registry annotate, or take it out of protected_sessions.');
      const selected = plan.selected.filter(isTarget);
      if (selected.length === 0) throw new AppError('SESSION_NOT_FOUND', `no gone session ${name} with id ${input.expect_session_id} in the registry`, 'terminal_list_sessions with include_dead: true lists the gone sessions and their ids.');
      return selected;
    };
    const c = await criteria();
    const rows = decide(caller.deps.lifecycle.registry.list(), c);
    audit.session(name);
    const base = { session: name, session_id: input.expect_session_id };
    const summary = `forget ${rows.length} registry row(s)`;
    if (input.confirm !== true) return { ...base, result: 'DRY_RUN', rows: rows.length, audit_id: audit.dryRun(summary) };
    const auditId = audit.begin(summary);
    const applied = caller.deps.lifecycle.registry.tombstone((now) => decide(now, c).map((r) => r.id), caller.actor, c.now);
    audit.finish('SENT', null, `DELETED ${applied.length}`);
    return { ...base, result: 'DELETED', rows: applied.length, audit_id: auditId };
  });
}
