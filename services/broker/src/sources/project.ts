/**
 * Opening a configured project: the name must be in `observer.source_roots`, the root
 * must exist and be the top level of a git work tree. Callers only ever name projects;
 * the host path stays in the broker (errors never include it).
 */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import { openGitRepo, assertRevisionArgument, type GitRepo } from '../effects/git/git-runner.js';
import { resolveRoot } from '../effects/source-files/source-file.js';

export interface SourceProject {
  name: string;
  /** Real path of the root. Never returned to a caller. */
  root: string;
  git: GitRepo;
}

export function findSourceRoot(config: BrokerConfig, name: string): { name: string; path: string } {
  const root = config.observer.source_roots.find((r) => r.name === name);
  if (!root) throw new AppError('NOT_FOUND', 'no such project: call listProjects to see the configured names');
  return root;
}

export async function openSourceProject(config: BrokerConfig, name: string): Promise<SourceProject> {
  const configured = findSourceRoot(config, name);
  const root = await resolveRoot(configured.path);
  const git = await openGitRepo(root);
  const top = await git.run(['rev-parse', '--show-toplevel'], { maxBytes: 64 * 1024 });
  if (top.exitCode !== 0 || top.stdout.toString('utf8').replace(/\n$/, '') !== root) {
    throw new AppError('NOT_FOUND', 'the project directory is not the top level of a git work tree');
  }
  return { name, root, git };
}

const COMMIT_ID = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/**
 * Resolve a caller's revision to a commit id. Only commits resolve (`^{commit}`), so
 * `HEAD:.env` (a blob) or a tree cannot be smuggled into later commands; every later
 * git command gets the id, never the caller's text.
 */
export async function resolveCommit(git: GitRepo, rev: string): Promise<string> {
  assertRevisionArgument(rev);
  const out = await git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { maxBytes: 4096 });
  const id = out.stdout.toString('utf8').trim();
  if (out.exitCode !== 0 || !COMMIT_ID.test(id)) throw new AppError('NOT_FOUND', 'no such commit or revision');
  return id;
}

/** The commit HEAD points at, or null before the first commit. */
export async function headCommit(git: GitRepo): Promise<string | null> {
  const out = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { maxBytes: 4096 });
  const id = out.stdout.toString('utf8').trim();
  return out.exitCode === 0 && COMMIT_ID.test(id) ? id : null;
}

/** The empty tree in this repository's hash algorithm: the base of a root commit's diff. */
export async function emptyTree(git: GitRepo): Promise<string> {
  const out = await git.run(['hash-object', '-t', 'tree', '/dev/null'], { maxBytes: 4096 });
  const id = out.stdout.toString('utf8').trim();
  if (out.exitCode !== 0 || !COMMIT_ID.test(id)) throw new Error('git could not name the empty tree');
  return id;
}
