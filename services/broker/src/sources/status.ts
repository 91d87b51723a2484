/** Project discovery and working-tree status: what projects exist, which branch each is
 * on, what changed. Paths of secret files are listed (marked hidden), never shown. */
import { SOURCE_LIMITS, type GitStatusOutput, type ProjectSummary } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { GitRepo } from '../effects/git/git-runner.js';
import { isGitInternalPath, isSecretPath } from '../policy/source-paths.js';
import { parseStatusV2, type ParsedStatus } from './git-output.js';
import { openSourceProject } from './project.js';

/** Porcelain v2 keeps its format whatever the repository's status.* config says;
 * submodules are compared by commit only, so git never runs inside one. */
async function readStatus(git: GitRepo): Promise<{ status: ParsedStatus; truncated: boolean }> {
  const out = await git.run(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal', '--ignore-submodules=dirty']);
  if (out.exitCode !== 0 && !out.truncated) throw new Error(`git status failed (${out.exitCode})`);
  return { status: parseStatusV2(out.stdout.toString('utf8')), truncated: out.truncated };
}

function basename(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? '';
}

export async function listProjects(config: BrokerConfig): Promise<ProjectSummary[]> {
  return Promise.all(
    config.observer.source_roots.map(async (root): Promise<ProjectSummary> => {
      const base: ProjectSummary = { name: root.name, directory: basename(root.path), available: false, branch: null, head: null, dirty: null, untracked: null };
      try {
        const project = await openSourceProject(config, root.name);
        const { status } = await readStatus(project.git);
        return {
          ...base,
          available: true,
          branch: status.branch,
          head: status.head,
          dirty: status.entries.some((e) => e.kind !== 'untracked'),
          untracked: status.entries.filter((e) => e.kind === 'untracked').length,
        };
      } catch {
        // A missing root, a directory that is not a work tree, a broken repository or a
        // timeout is a fact about that project, not a failure of the whole listing.
        return base;
      }
    }),
  );
}

export async function gitStatus(config: BrokerConfig, name: string): Promise<GitStatusOutput> {
  const { git } = await openSourceProject(config, name);
  const { status, truncated } = await readStatus(git);
  const entries = status.entries
    .filter((e) => !isGitInternalPath(e.path))
    .map((e) => ({
      path: e.path,
      orig_path: e.origPath,
      kind: e.kind,
      index: e.xy[0] ?? '.',
      worktree: e.xy[1] ?? '.',
      hidden: isSecretPath(e.path) || (e.origPath !== null && isSecretPath(e.origPath)),
    }));
  return {
    project: name,
    branch: status.branch,
    head: status.head,
    upstream: status.upstream,
    ahead: status.ahead,
    behind: status.behind,
    entries: entries.slice(0, SOURCE_LIMITS.statusEntries),
    truncated: truncated || entries.length > SOURCE_LIMITS.statusEntries,
  };
}
