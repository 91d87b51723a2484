/** terminal_resize: sets the size of a session's current window, within the contract's
 * bounds (checked by the schema and again by the effect). The session must be one the
 * caller may type into (the whole input decision on the target, as for a send): resizing
 * changes what its program sees. The broker's control clients attach with ignore-size and keep out of sizing.
 * This host's sessions only: a `node:session` is refused by name (docs/nodes.md). */
import { AppError, LIFECYCLE_LIMITS, type SessionResizeInput, type SessionResizeOutput } from '@terminal-mcp/contract';
import { withLifecycleAudit } from './lifecycle-audit.js';
import type { LifecycleCaller } from './lifecycle-deps.js';
import { auditedTargetOn, launchHost } from './launch-host.js';
import { requireLifecycle } from './lifecycle-gates.js';

export function resizeSession(caller: LifecycleCaller, input: SessionResizeInput): Promise<SessionResizeOutput> {
  return withLifecycleAudit(caller, 'terminal_resize', async (audit) => {
    audit.session(input.session);
    requireLifecycle(caller);
    const { width, height } = input;
    if (width < LIFECYCLE_LIMITS.minWidth || width > LIFECYCLE_LIMITS.maxWidth || height < LIFECYCLE_LIMITS.minHeight || height > LIFECYCLE_LIMITS.maxHeight) {
      throw new AppError('LAUNCH_NOT_ALLOWED', 'the size is out of bounds');
    }
    if (caller.deps.hosts.resolveSession(input.session).host.node !== undefined) {
      throw new AppError('LAUNCH_NOT_ALLOWED', "resizing a node's session is not available", 'terminal_resize acts on sessions of this host only.');
    }
    caller.deps.access.checkInputName({ session: input.session }, 'text');
    const target = await caller.deps.access.inputTarget({ session: input.session }, 'text');
    // The same decision as a send on the resolved target (patterns, grant, guarded and
    // foreground commands on the pane's process tree read now): a session an agent may
    // not type into is not resized either (issue 45).
    const processes = await caller.deps.hosts.local.processTree(target.identity.panePid, target.currentCommand);
    caller.deps.access.checkInputTarget(target, processes);
    const found = await caller.deps.tmux.findSession(target.sessionName);
    if (found === null || found.sessionId !== target.identity.sessionId) throw new AppError('SESSION_NOT_FOUND', 'no session has exactly that name');
    audit.session(found.name, auditedTargetOn(launchHost(caller.deps.hosts.local), found));
    const auditId = audit.begin(`resize ${width}x${height}`);
    if (!(await caller.deps.lifecycle.tmux.resize(found.sessionId, width, height))) throw new AppError('TMUX_UNAVAILABLE', 'tmux refused to resize the window');
    audit.finish('SENT', null, `RESIZED ${width}x${height}`);
    return { session: found.name, session_id: found.sessionId, width, height, audit_id: auditId };
  });
}
