/**
 * What a launch profile allows, decided on (config, facts) with no I/O: the session name
 * a start may use and the working directory it may start in. The broker starts only the
 * profile's own command; these rules keep a client from bending it through the two things
 * it may choose.
 *
 * - A name must match the profile's `name_pattern` AND be 1-64 characters of letters,
 *   digits, `_` and `-` starting with a letter or digit: tmux format-expands
 *   `new-session -s` (`#(...)` runs a shell command), a leading `-` is a flag, a trailing
 *   `;` separates commands, and tmux rewrites `.` and `:`. Sensitive names (policy/access.ts)
 *   and the operator's protected sessions are refused.
 * - A cwd is absolute, has no `..` segment, and its real path (symlinks resolved, by the
 *   caller, in effects/) is one of the profile's roots (also resolved) or below one.
 */
import { isSensitiveName, matchesGlob } from './access.js';

/** The parts of a config launch profile (config/launch-profile-schema.ts) these rules read. */
export interface LaunchProfile {
  readonly name: string;
  readonly command: readonly string[];
  readonly name_pattern?: string | undefined;
  readonly ready_command?: string | undefined;
  readonly recover: 'on_exit' | 'never';
  readonly max_restarts_per_hour: number;
  readonly backoff_seconds: number;
}

export type LaunchRefusal = { code: 'LAUNCH_NOT_ALLOWED' | 'PROFILE_NOT_FOUND'; message: string };

/** Names tmux takes literally in every position. */
export const LAUNCH_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function namePatternOf(profile: LaunchProfile): string {
  return profile.name_pattern ?? `${profile.name}-*`;
}

/** The profile of that name, or the refusal listing the names that exist. */
export function findProfile<P extends LaunchProfile>(profiles: readonly P[], name: string): P | LaunchRefusal {
  const found = profiles.find((p) => p.name === name);
  if (found) return found;
  const names = profiles.map((p) => p.name);
  return { code: 'PROFILE_NOT_FOUND', message: names.length ? `no launch profile is named that; profiles: ${names.join(', ')}` : 'no launch profiles are configured' };
}

export const isRefusal = (x: unknown): x is LaunchRefusal => typeof x === 'object' && x !== null && 'code' in x && 'message' in x;

/** A name the session may be created or recreated under, or why not. */
export function checkLaunchName(profile: LaunchProfile, name: string, protectedNames: readonly string[]): LaunchRefusal | null {
  if (!LAUNCH_NAME_RE.test(name)) return { code: 'LAUNCH_NOT_ALLOWED', message: 'a new session name is 1-64 letters, digits, _ or -, starting with a letter or digit' };
  if (!matchesGlob(namePatternOf(profile), name)) return { code: 'LAUNCH_NOT_ALLOWED', message: `the name does not match the profile's name_pattern ${namePatternOf(profile)}` };
  if (isSensitiveName(name)) return { code: 'LAUNCH_NOT_ALLOWED', message: 'sensitive session names are never started, closed or restarted' };
  if (protectedNames.includes(name)) return { code: 'LAUNCH_NOT_ALLOWED', message: 'this session is protected (session_lifecycle.protected_sessions)' };
  return null;
}

/** The first free default name: `<profile>-1`, `<profile>-2`, ... (`.` becomes `-`). */
export function defaultLaunchName(profile: LaunchProfile, taken: ReadonlySet<string>): string {
  const base = profile.name.replace(/\./g, '-');
  for (let n = 1; n < 10_000; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  return `${base}-${Date.now()}`;
}

/** The syntactic part of a cwd check, before anything touches the disk. */
export function checkRequestedCwd(cwd: string): LaunchRefusal | null {
  if (!cwd.startsWith('/')) return { code: 'LAUNCH_NOT_ALLOWED', message: 'cwd must be an absolute path' };
  if (cwd.split('/').includes('..')) return { code: 'LAUNCH_NOT_ALLOWED', message: 'cwd must not contain ..' };
  if (!/^[\x20-\x7e]+$/.test(cwd) || cwd.includes('#') || cwd.endsWith(';')) return { code: 'LAUNCH_NOT_ALLOWED', message: 'cwd must be printable ASCII without # or a trailing ;' };
  return null;
}

/** Whether the resolved cwd lies in one of the resolved roots (the root itself or below). */
export function cwdUnderRoots(realCwd: string, realRoots: readonly string[]): boolean {
  return realRoots.some((root) => realCwd === root || realCwd.startsWith(root.endsWith('/') ? root : `${root}/`));
}

/** The foreground program a start waits for: `ready_command`, else the command's basename. */
export function readyCommandOf(profile: LaunchProfile): string {
  return profile.ready_command ?? profile.command[0]!.split('/').pop()!;
}

/**
 * Recovery's decision after a managed session died: restart after `delayMs`, or stop as a
 * crash loop (the bound is reached). `restartsLastHour`: restarts of this session's chain
 * in the last hour; the backoff doubles with each of them.
 */
export function decideRecovery(profile: LaunchProfile, restartsLastHour: number): { restart: true; delayMs: number } | { restart: false; reason: string } {
  if (profile.recover !== 'on_exit') return { restart: false, reason: 'the profile does not recover (recover: never)' };
  if (restartsLastHour >= profile.max_restarts_per_hour) {
    return { restart: false, reason: `crash loop: restarted ${restartsLastHour} times in the last hour (max_restarts_per_hour ${profile.max_restarts_per_hour}); recovery stopped` };
  }
  return { restart: true, delayMs: Math.round(profile.backoff_seconds * 1000 * 2 ** restartsLastHour) };
}
