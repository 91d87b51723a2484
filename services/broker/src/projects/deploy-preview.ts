/** deploy_preview: runs one fixed command of a preview-safe profile (effects/deploy), in
 * the repository's directory, and answers its exit code and the end of its redacted
 * output. Anything not in the profile is refused; one run per project at a time. */
import { AppError, PROJECT_LIMITS, type DeployPreviewInput, type DeployPreviewOutput } from '@terminal-mcp/contract';
import { requireEffect } from '../access/require-effect.js';
import type { InputCaller } from '../input/input-deps.js';
import { runFixedCommand } from '../effects/deploy/run-command.js';
import { redactSecrets } from '../policy/redact.js';
import { openSourceProject } from '../sources/project.js';
import { findProfile } from './profiles.js';
import type { RunningWork } from './running-work.js';

export async function runDeployPreview(ctx: InputCaller, input: DeployPreviewInput, running: Pick<RunningWork, 'takeDeployPreview'>): Promise<DeployPreviewOutput> {
  // A command acts on the host: like typing, only while the operator's input switch is on.
  if (!ctx.deps.config.permissions.terminal_input) {
    throw new AppError('INPUT_DISABLED', 'acting on the host is off (permissions.terminal_input): deploy previews run nothing');
  }
  const profile = findProfile(ctx.deps.config, input.project);
  const deploy = profile.deploy_preview;
  if (!deploy) throw new AppError('FORBIDDEN', 'this project has no deploy_preview profile', 'Ask the operator to add project_profiles[].deploy_preview.');
  if (!deploy.preview_safe) throw new AppError('FORBIDDEN', 'this project\'s deploy profile is not marked preview_safe', 'Ask the operator to review it and set preview_safe: true.');
  const command = deploy.commands.find((c) => c.id === input.command_id);
  if (!command) {
    throw new AppError('FORBIDDEN', 'that command id is not in the project\'s deploy profile', `Use one of: ${deploy.commands.map((c) => c.id).join(', ') || '(none configured)'}.`);
  }
  const release = running.takeDeployPreview(profile.name);
  try {
    // The repository's real path, as the source reader resolves it.
    const project = await openSourceProject(ctx.deps.config, profile.repo);
    // At the effect: running a command acts on the host (effects/processes.ts).
    requireEffect(ctx, 'input');
    ctx.deps.log.info({ event: 'deploy.preview_started', project: profile.name, command: command.id, actor: ctx.actor }, 'deploy preview started');
    const run = await runFixedCommand(command.argv, { cwd: project.root, timeoutMs: Math.min(command.timeout_seconds, PROJECT_LIMITS.commandTimeoutSeconds) * 1000 });
    // Redact the whole output first, then keep its end: no secret is split by the cut.
    const redacted = redactSecrets(run.output);
    const cut = redacted.text.length > PROJECT_LIMITS.commandOutputChars;
    ctx.deps.log.info(
      { event: 'deploy.preview_finished', project: profile.name, command: command.id, actor: ctx.actor, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs },
      'deploy preview finished',
    );
    return {
      project: profile.name,
      command_id: command.id,
      exit_code: run.exitCode,
      timed_out: run.timedOut,
      duration_ms: run.durationMs,
      output: cut ? redacted.text.slice(-PROJECT_LIMITS.commandOutputChars) : redacted.text,
      output_truncated: cut || run.truncated,
      redactions: redacted.count,
    };
  } finally {
    release();
  }
}
