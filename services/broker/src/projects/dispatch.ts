/** project_dispatch: a task to the profile's agent through terminal_send_task's own path
 * (input/task.ts: every input gate, the audit log, the pane lease, landing and submit
 * checks, idempotency) — never another way of typing. The idempotency key is required, so
 * a retried intent cannot submit the task twice. */
import type { ProjectDispatchInput, ProjectDispatchOutput } from '@terminal-mcp/contract';
import type { InputCaller } from '../input/input-deps.js';
import { sendTask } from '../input/task.js';
import { dispatchTarget, findProfile } from './profiles.js';

export async function dispatchToProject(ctx: InputCaller, input: ProjectDispatchInput): Promise<ProjectDispatchOutput> {
  const profile = findProfile(ctx.deps.config, input.project);
  const target = dispatchTarget(profile);
  const receipt = await sendTask(ctx, {
    target: target.kind === 'binding' ? { binding: target.name } : { session: target.name },
    text: input.task,
    // Scoped by project, so the same key for two projects is two intents.
    idempotencyKey: `p:${profile.name}:${input.idempotency_key}`,
    dryRun: input.dry_run ?? false,
  });
  return { ...receipt, project: profile.name };
}
