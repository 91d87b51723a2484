/**
 * project_check: one bounded, redacted answer to "how is this project doing?" — each
 * profile session's status with its evidence (through the same read gate as
 * terminal_status), the binding's state, git branch/ahead/behind/dirty/last commit, the
 * deploy profile's readiness, the supervisor's watches on it and their unacknowledged
 * events, the health of the configured nodes (a profile's session may be `node:session`),
 * and blockers in plain words. A part that fails is reported
 * with its error code instead of failing the whole check.
 */
import { readAppErrorData, type ProjectCheckOutput } from '@terminal-mcp/contract';
import type { InputCaller } from '../input/input-deps.js';
import { probeUrl, programFound } from '../effects/deploy/readiness.js';
import { getBinding } from '../input/bindings.js';
import type { SupervisorEngine } from '../supervisor/engine.js';
import type { NodeSet } from '../nodes/node-set.js';
import type { HostSet } from '../nodes/host-set.js';
import { watchKeyOf } from '../supervisor/watches.js';
import { gitLog } from '../sources/history.js';
import { gitStatus } from '../sources/status.js';
import { dispatchTarget, findProfile, type ProjectProfile } from './profiles.js';

const codeOf = (err: unknown) => readAppErrorData(err)?.code ?? 'INTERNAL';

async function sessionChecks(ctx: ProjectCaller, profile: ProjectProfile): Promise<ProjectCheckOutput['sessions']> {
  const reader = ctx.deps.reader;
  const local = profile.sessions.some((name) => !name.includes(':')) ? await reader.list() : [];
  const none = { status: null, reason: null, current_command: null, error_code: null };
  return Promise.all(
    profile.sessions.map(async (name) => {
      if (name.includes(':')) return nodeSessionCheck(ctx, name);
      const summary = local.find((s) => s.name === name);
      const base = { session: name, exists: summary !== undefined, read_allowed: summary?.read_allowed ?? false, ...none };
      if (!summary) return { ...base, error_code: 'SESSION_NOT_FOUND' };
      if (!summary.read_allowed) return { ...base, error_code: 'SESSION_NOT_ALLOWED' };
      try {
        const s = await reader.status(name);
        return { ...base, status: s.status, reason: s.reason, current_command: s.current_command };
      } catch (err) {
        return { ...base, error_code: codeOf(err) };
      }
    }),
  );
}

/** A profile's `node:session`: its status through the node's own gate and reader (the
 * route every node read takes); what the error says is what the check says. */
async function nodeSessionCheck(ctx: ProjectCaller, name: string): Promise<ProjectCheckOutput['sessions'][number]> {
  const base = { session: name, exists: false, read_allowed: false, status: null, reason: null, current_command: null, error_code: null };
  try {
    const s = await ctx.deps.hosts.read(name, (host, session) => host.reader.status(session));
    return { ...base, exists: true, read_allowed: true, status: s.status, reason: s.reason, current_command: s.current_command };
  } catch (err) {
    const code = codeOf(err);
    // Not allowed says it exists (the gate resolved it); anything else says nothing more.
    return { ...base, exists: code === 'SESSION_NOT_ALLOWED', error_code: code };
  }
}

/** Every configured node's health (each probed, bounded, in parallel), or null without
 * `nodes:`. */
async function nodesCheck(nodes: NodeSet | undefined): Promise<ProjectCheckOutput['nodes']> {
  if (nodes === undefined || nodes.names().length === 0) return null;
  const health = await nodes.health();
  const notOk = health.filter((h) => h.execution !== 'EXECUTION_OK');
  return {
    total: health.length,
    execution_ok: health.length - notOk.length,
    not_ok: notOk.map((h) => ({ node: h.node, transport: h.transport, execution: h.execution, reason: h.reason ?? null, hint: h.hint ?? null })),
  };
}

async function gitCheck(ctx: InputCaller, profile: ProjectProfile): Promise<ProjectCheckOutput['git']> {
  const none = { available: false, branch: null, upstream: null, ahead: null, behind: null, dirty: null, changed: null, untracked: null, last_commit: null };
  try {
    const [status, log] = await Promise.all([gitStatus(ctx.deps.config, profile.repo), gitLog(ctx.deps.config, { project: profile.repo, limit: 1 })]);
    const last = log.commits[0];
    return {
      available: true,
      branch: status.branch,
      upstream: status.upstream,
      ahead: status.ahead,
      behind: status.behind,
      dirty: status.entries.some((e) => e.kind !== 'untracked'),
      changed: status.entries.filter((e) => e.kind !== 'untracked').length,
      untracked: status.entries.filter((e) => e.kind === 'untracked').length,
      last_commit: last ? { commit: last.commit, subject: last.subject, date: last.committer_date } : null,
      error_code: null,
    };
  } catch (err) {
    return { ...none, error_code: codeOf(err) };
  }
}

async function deployCheck(profile: ProjectProfile): Promise<ProjectCheckOutput['deploy']> {
  const d = profile.deploy_preview;
  if (!d) return { configured: false, preview_safe: false, commands: [], probes: [] };
  const [commands, probes] = await Promise.all([
    Promise.all(d.commands.map(async (c) => ({ id: c.id, program_found: await programFound(c.argv[0]!) }))),
    Promise.all(d.probes.map(async (p) => ({ id: p.id, url: p.url, ...(await probeUrl(p.url, p.timeout_seconds * 1000)) }))),
  ]);
  return { configured: true, preview_safe: d.preview_safe, commands, probes: probes.map((p) => ({ id: p.id, url: p.url, ok: p.ok, http_status: p.httpStatus, error: p.error })) };
}

/** Events per watch counted for the check (a count, not a listing: the supervisor's own
 * tools list them). */
const MAX_COUNTED_EVENTS = 1_000;

/** The supervisor's watches on the profile's sessions and binding, and how many of their
 * events are unacknowledged. */
function supervisorCheck(engine: SupervisorEngine, profile: ProjectProfile): ProjectCheckOutput['supervisor'] {
  const { store, config } = engine;
  const keys = new Set([...profile.sessions.map((session) => watchKeyOf({ session })), ...(profile.binding === undefined ? [] : [watchKeyOf({ binding: profile.binding })])]);
  const watches = store.listWatches().filter((w) => keys.has(w.watch_key));
  const unacknowledged = watches.reduce((n, w) => n + store.listEvents({ watchId: w.id, unacknowledgedOnly: true, limit: MAX_COUNTED_EVENTS }).length, 0);
  const note =
    watches.length === 0
      ? 'no supervisor watch on this project: supervisor_watch a session or the binding to be told when it waits, fails or finishes'
      : config.enabled
        ? 'watches are evaluated on output; supervisor_list_events lists the events'
        : 'supervisor.enabled is false: watches are evaluated only by supervisor_run_once';
  return {
    available: true,
    enabled: config.enabled,
    running: engine.running(),
    watches: watches.map((w) => ({ watch_key: w.watch_key, state: w.state, enabled: w.enabled === 1 })),
    unacknowledged_events: unacknowledged,
    note,
  };
}

function blockersOf(out: Omit<ProjectCheckOutput, 'blockers'>, nodesOfSessions: ReadonlySet<string>): string[] {
  const b: string[] = [];
  for (const n of out.nodes?.not_ok ?? []) {
    if (nodesOfSessions.has(n.node)) b.push(`node ${n.node} holds this project's sessions and is ${n.transport}, ${n.execution}${n.reason ? ` (${n.reason})` : ''}: terminal_node_health says more`);
  }
  if (!out.git.available) b.push(`the repository cannot be read (${out.git.error_code})`);
  else {
    if (out.git.dirty) b.push(`the working tree has ${out.git.changed} uncommitted change(s)`);
    if ((out.git.behind ?? 0) > 0) b.push(`the branch is ${out.git.behind} commit(s) behind ${out.git.upstream}`);
  }
  for (const s of out.sessions) {
    if (!s.exists) b.push(`session ${JSON.stringify(s.session)} is not running`);
    else if (!s.read_allowed) b.push(`session ${JSON.stringify(s.session)} may not be read (ask the operator for a grant)`);
    else if (s.status === 'WAITING_INPUT') b.push(`session ${JSON.stringify(s.session)} is waiting for input`);
    else if (s.status === 'WAITING_HUMAN') b.push(`session ${JSON.stringify(s.session)} is waiting for a person (a password prompt: terminal_request_human)`);
    else if (s.error_code) b.push(`session ${JSON.stringify(s.session)} could not be checked (${s.error_code})`);
  }
  if (out.binding && out.binding.state !== 'OK') b.push(`binding ${JSON.stringify(out.binding.name)} is ${out.binding.state ?? out.binding.error_code}`);
  if (out.deploy.configured) {
    if (!out.deploy.preview_safe) b.push('the deploy profile is not marked preview_safe, so deploy_preview will refuse');
    for (const c of out.deploy.commands) if (!c.program_found) b.push(`deploy command ${c.id}: its program is not installed`);
    for (const p of out.deploy.probes) if (!p.ok) b.push(`probe ${p.id} (${p.url}) ${p.error ?? `answered ${p.http_status}`}`);
  }
  return b;
}

/** The input caller plus the supervisor engine (the check reports its watches). */
export type ProjectCaller = InputCaller & { deps: InputCaller['deps'] & { supervisor: SupervisorEngine; nodes?: NodeSet | undefined; hosts: HostSet } };

export async function checkProject(ctx: ProjectCaller, name: string): Promise<ProjectCheckOutput> {
  const profile = findProfile(ctx.deps.config, name);
  const [sessions, git, deploy, binding, nodes] = await Promise.all([
    // Without tmux there is nothing to check about the agents: TMUX_UNAVAILABLE.
    sessionChecks(ctx, profile),
    gitCheck(ctx, profile),
    deployCheck(profile),
    profile.binding === undefined
      ? Promise.resolve(null)
      : getBinding(ctx, profile.binding).then(
          (b) => ({ name: b.binding, state: b.state, session: b.session, error_code: null }),
          (err: unknown) => ({ name: profile.binding!, state: null, session: null, error_code: codeOf(err) }),
        ),
    nodesCheck(ctx.deps.nodes),
  ]);
  const out = {
    project: profile.name,
    target: dispatchTarget(profile),
    sessions,
    binding,
    supervisor: supervisorCheck(ctx.deps.supervisor, profile),
    git,
    deploy,
    nodes,
  };
  const nodesOfSessions = new Set<string>();
  for (const name of profile.sessions) {
    if (!name.includes(':')) continue;
    try {
      const node = ctx.deps.hosts.resolveSession(name).host.node;
      if (node !== undefined) nodesOfSessions.add(node);
    } catch {
      /* an unknown node: its session check already says SESSION_NOT_FOUND */
    }
  }
  return { ...out, blockers: blockersOf(out, nodesOfSessions) };
}
