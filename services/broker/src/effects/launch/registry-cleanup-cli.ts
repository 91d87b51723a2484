/**
 * `terminal-mcp-registry cleanup`: tombstone session_registry rows of sessions that are
 * gone for good. Dry run by default (prints the plan and changes nothing); `--verbose`
 * lists every row, `--json` prints the plan as JSON. `--apply --confirm-count N` applies
 * the plan only if it still selects exactly N rows — re-derived inside the write
 * transaction against what tmux lists at that moment — else it refuses and changes
 * nothing. Applied rows become DELETED tombstones recording who and when. A session alive
 * now, or named in session_lifecycle.protected_sessions, is never selected. A node's rows
 * are named `node:session` (in NAME and protected_sessions too); this command cannot ask a
 * node's tmux, so a node's session the registry has ACTIVE counts as alive now.
 *
 * Runs as the broker's user on the same state directory and config (same environment
 * variables), whether or not the broker is running.
 *
 *   terminal-mcp-registry cleanup [--min-age-days N] [--verbose] [--json]
 *   terminal-mcp-registry cleanup --apply --confirm-count N [--min-age-days N] [--actor NAME]
 *   terminal-mcp-registry annotate NAME [--notes TEXT] [--conversation-id ID]
 *
 * `annotate` records what an operator knows about a session (notes, the agent's
 * conversation id), which also keeps a cleanup from selecting it.
 */
import { homedir, userInfo } from 'node:os';
import { resolvePaths } from '@terminal-mcp/contract';
import { execa } from 'execa';
import { loadConfigFile } from '../config-file.js';
import { BROKER_VERSION } from '../package-info.js';
import { openStore, openStoreReadOnly } from '../store/database.js';
import { registryStoreDefinition, sessionRegistryStore, type RegistryRecord } from '../store/registry-store.js';
import { GUARD_REASONS, planRegistryCleanup, registryName, type CleanupPlan } from '../../policy/registry-cleanup.js';
import { qualify, splitQualified } from '../../policy/qualified-name.js';
import { LOCAL_NODE } from '../../config/nodes-schema.js';

const NAME = 'terminal-mcp-registry';
const USAGE = `usage: ${NAME} cleanup [options] | annotate NAME [--notes TEXT] [--conversation-id ID]
cleanup:
  (no options)          dry run: show how many rows would be tombstoned; changes nothing
  --verbose             list every selected row and every row held back (with the guard)
  --json                print the plan as JSON
  --min-age-days N      only rows last seen at least N days ago (default 7)
  --apply --confirm-count N
                        tombstone exactly the N rows of the plan, or refuse if it changed
  --actor NAME          who is recorded on the tombstones (default cli:<user>)
annotate NAME (the newest row of that name that is not a tombstone; "" clears a field):
  --notes TEXT          operator notes (at most 2000 characters)
  --conversation-id ID  the agent's conversation id (at most 200 characters)
--help, --version
`;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

interface CleanupOptions {
  apply: boolean;
  confirmCount: number | null;
  minAgeDays: number;
  verbose: boolean;
  json: boolean;
  actor: string;
}

function count(flag: string, value: string | undefined): number {
  if (value === undefined || !/^\d{1,9}$/.test(value)) throw new CliError(`${flag} needs a whole number\n${USAGE}`);
  return Number(value);
}

export function parseCleanupArgs(args: readonly string[]): CleanupOptions {
  if (args[0] !== 'cleanup') throw new CliError(USAGE);
  const opts: CleanupOptions = { apply: false, confirmCount: null, minAgeDays: 7, verbose: false, json: false, actor: `cli:${userInfo().username}` };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--apply') opts.apply = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--json') opts.json = true;
    else if (arg === '--confirm-count') opts.confirmCount = count(arg, args[++i]);
    else if (arg === '--min-age-days') opts.minAgeDays = count(arg, args[++i]);
    else if (arg === '--actor') {
      const actor = args[++i];
      if (!actor || !/^[\w.@:-]{1,64}$/.test(actor)) throw new CliError('--actor: 1-64 characters of A-Z a-z 0-9 _ . @ : -');
      opts.actor = actor;
    } else throw new CliError(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  if (opts.apply && opts.confirmCount === null) throw new CliError('--apply needs --confirm-count N (the count of a dry run you reviewed)');
  if (!opts.apply && opts.confirmCount !== null) throw new CliError('--confirm-count only makes sense with --apply');
  return opts;
}

/** Session names on the broker's tmux server now; none when no server runs. Any other
 * failure refuses the cleanup: without the list, "not alive" cannot be shown. */
export async function liveSessionNames(tmuxSocket: string | undefined): Promise<Set<string>> {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const r = await execa('tmux', [...(tmuxSocket ? ['-L', tmuxSocket] : []), 'list-sessions', '-F', '#{session_name}'], { env, extendEnv: false, reject: false, timeout: 10_000 });
  if (r.exitCode === 0) return new Set(r.stdout.split('\n').filter((l) => l.length > 0));
  if (/no server running|error connecting to|No such file or directory/.test(r.stderr)) return new Set();
  throw new CliError(`cannot list tmux sessions (${r.stderr.trim().slice(0, 200) || `exit ${String(r.exitCode)}`}); nothing was changed`, 1);
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const rowLine = (r: RegistryRecord) => `  ${JSON.stringify(registryName(r))}  ${r.status}  ${qualify(r.node, r.sessionId)}  last seen ${when(r.lastSeen)}`;
const rowJson = (r: RegistryRecord) => ({ id: r.id, name: registryName(r), session_id: qualify(r.node, r.sessionId), status: r.status, first_seen: when(r.firstSeen), last_seen: when(r.lastSeen) });

function describePlan(plan: CleanupPlan, opts: CleanupOptions, applied: RegistryRecord[] | null): string {
  if (opts.json) {
    return `${JSON.stringify({
      applied: applied !== null,
      selected: (applied ?? plan.selected).map(rowJson),
      needs_review: plan.needsReview.map(({ row, guard }) => ({ ...rowJson(row), guard, reason: GUARD_REASONS[guard] })),
    })}\n`;
  }
  const out: string[] = [];
  if (applied !== null) out.push(`tombstoned ${applied.length} row(s) as DELETED (by ${opts.actor})`);
  else out.push(`${plan.selected.length} row(s) would be tombstoned; ${plan.needsReview.length} held back for review. Nothing was changed.`);
  if (opts.verbose || applied !== null) out.push(...(applied ?? plan.selected).map(rowLine));
  if (opts.verbose && plan.needsReview.length > 0) {
    out.push('needs review (never selected):', ...plan.needsReview.map(({ row, guard }) => `${rowLine(row)}  [${guard}: ${GUARD_REASONS[guard]}]`));
  }
  if (applied === null && plan.selected.length > 0) out.push(`to apply exactly this plan: ${NAME} cleanup --apply --confirm-count ${plan.selected.length}${opts.minAgeDays !== 7 ? ` --min-age-days ${opts.minAgeDays}` : ''}`);
  return `${out.join('\n')}\n`;
}

function runAnnotate(args: readonly string[], env: NodeJS.ProcessEnv): string {
  const name = args[1];
  if (!name || name.startsWith('--') || name.length > 256) throw new CliError(USAGE);
  const fields: { notes?: string | null; conversationId?: string | null } = {};
  for (let i = 2; i < args.length; i += 2) {
    const value = args[i + 1];
    if (value === undefined) throw new CliError(`${args[i]} needs a value\n${USAGE}`);
    if (args[i] === '--notes' && value.length <= 2000) fields.notes = value === '' ? null : value;
    else if (args[i] === '--conversation-id' && value.length <= 200) fields.conversationId = value === '' ? null : value;
    else throw new CliError(`unknown or too long argument ${JSON.stringify(args[i])}\n${USAGE}`);
  }
  if (Object.keys(fields).length === 0) throw new CliError('annotate needs --notes or --conversation-id');
  const db = openStore(resolvePaths(env, homedir()).stateDir, registryStoreDefinition);
  try {
    // `node:session` names a node's session, as everywhere else.
    const { node, session } = splitQualified(name, LOCAL_NODE);
    const row = sessionRegistryStore(db).annotate(node, session, fields);
    if (!row) throw new CliError(`no session named ${JSON.stringify(name)} in the registry (tombstones cannot be annotated)`, 1);
    return `annotated ${JSON.stringify(registryName(row))} (${qualify(row.node, row.sessionId)}, ${row.status}): notes ${row.notes === null ? 'none' : JSON.stringify(row.notes)}, conversation id ${row.conversationId ?? 'none'}\n`;
  } finally {
    db.close();
  }
}

export async function runRegistryCleanup(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  // Like every bin: --help and --version answer without opening anything.
  if (args.length === 1 && ['--help', '-h', 'help'].includes(args[0]!)) return USAGE;
  if (args.length === 1 && ['--version', '-V'].includes(args[0]!)) return `${NAME} ${BROKER_VERSION}\n`;
  if (args[0] === 'annotate') return runAnnotate(args, env);
  if (args[0] !== undefined && args[0] !== 'cleanup') throw new CliError(`unknown command ${JSON.stringify(args[0].slice(0, 40))}\n${USAGE}`);
  const opts = parseCleanupArgs(args);
  const paths = resolvePaths(env, homedir());
  const config = loadConfigFile(paths.configPath);
  const liveNames = await liveSessionNames(paths.tmuxSocket);
  const criteria = { liveNames, protectedNames: new Set(config.session_lifecycle.protected_sessions), minAgeDays: opts.minAgeDays, now: Date.now() };
  // A dry run writes nothing: no state directory, no registry.db made, the file opened
  // read-only (issue 44: a dry run had created both).
  if (!opts.apply) {
    const existing = openStoreReadOnly(paths.stateDir, registryStoreDefinition);
    if (existing === null) return describePlan({ selected: [], needsReview: [] }, opts, null);
    try {
      return describePlan(planRegistryCleanup(sessionRegistryStore(existing).list(), criteria), opts, null);
    } finally {
      existing.close();
    }
  }
  const db = openStore(paths.stateDir, registryStoreDefinition);
  try {
    const store = sessionRegistryStore(db);
    let plan: CleanupPlan | undefined;
    const applied = store.tombstone(
      (rows) => {
        plan = planRegistryCleanup(rows, criteria);
        if (plan.selected.length !== opts.confirmCount) {
          throw new CliError(`refused: the plan now selects ${plan.selected.length} row(s), not ${String(opts.confirmCount)}; nothing was changed. Review it again (dry run) first.`, 3);
        }
        return plan.selected.map((r) => r.id);
      },
      opts.actor,
      criteria.now,
    );
    return describePlan(plan!, opts, applied);
  } finally {
    db.close();
  }
}

/** Exit codes: 0 done, 1 could not check (tmux), 2 usage, 3 the plan changed (refused).
 * `terminal-mcp registry-cleanup ARGS` can call `registryCleanupMain(['cleanup', ...ARGS])`. */
export async function registryCleanupMain(args: readonly string[]): Promise<number> {
  try {
    process.stdout.write(await runRegistryCleanup(args));
    return 0;
  } catch (err) {
    process.stderr.write(`${NAME}: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

