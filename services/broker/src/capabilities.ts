/**
 * THE table of what each part of the broker may do to the host: every folder of
 * services/broker/src (a capability such as notes or supervisor, or a layer such as
 * access or rpc) with the effects it may use, and which effects/ modules each effect is.
 * Read this file to know what a folder can reach without opening it.
 *
 * Generated from it (`npm run gen:architecture`, scripts/gen-architecture.ts): the lint
 * zones (eslint-rules/capability-zones.js, over the copy of this table in
 * capability-table.generated.js; core `no-restricted-imports`: a folder cannot import an
 * effect module it does not declare) and the capability table
 * in docs/architecture.md section 3. test/src/architecture-capabilities.test.ts derives
 * each folder's effects from its imports (and its `stores.<name>` uses) and fails on an
 * undeclared effect, a declaration no code uses, an effects/ module no effect names, or a
 * generated file that is out of date.
 *
 * Pure data: nothing imports it at run time. Its types give each capability's factory a
 * typed view of what it declares (`StoresOf<'supervisor'>`): a factory declared with one
 * cannot reach an undeclared store, at type level.
 */
import type { Stores } from './effects/store/store-set.js';

/** What an effect is, and the effects/ modules (paths under effects/, a trailing `/` for a
 * whole folder) that perform it. */
export const EFFECTS = {
  'tmux read': { what: 'list sessions, read pane facts and text, follow output (control mode)', modules: ['tmux/types', 'tmux/adapter', 'tmux/pane-watch', 'tmux/pane-identity', 'tmux/coalesce'] },
  'tmux write': { what: 'type into panes, send keys (load-buffer/paste-buffer), learn where a run ended and what a shell reports (shell integration)', modules: ['tmux/deliver', 'tmux/run-signal', 'tmux/shell-integration', 'tmux/shell-hook', 'tmux/tmux-command'] },
  'tmux sessions': { what: 'create, kill and resize the sessions of launch profiles (new-session with an argv, no shell)', modules: ['tmux/session-lifecycle'] },
  ssh: { what: 'reach other hosts\' tmux over OpenSSH (argv from the config only, host keys verified)', modules: ['ssh/', 'tmux/transport'] },
  'tmux pipe': { what: 'record pane output through pipe-pane into FIFOs and transcript files', modules: ['transcripts/'] },
  git: { what: 'run git read commands in configured repositories', modules: ['git/'] },
  'process spawn': { what: 'run operator-configured commands (verifiers, deploy previews) and the terminal-mcp CLIs', modules: ['processes', 'child-bounds', 'deploy/', 'verifier/', 'launch/'] },
  'process read': { what: 'read /proc (process trees, start times, liveness)', modules: ['proc/', 'pid-alive'] },
  files: { what: 'read or write files: project sources, note attachments, the state and socket directories, secret files, terminal_run\'s FIFOs', modules: ['run-fifos', 'source-files/', 'attachments/', 'known-secrets/', 'launch-dir', 'webauth-bootstrap-file', 'audit-key-file', 'secret-file', 'config-file', 'socket-files', 'early-sockets'] },
  'password hashing': { what: 'argon2id (native)', modules: ['argon2'] },
  'shell parsing': { what: 'parse shell text with tree-sitter-bash\'s bundled WebAssembly grammar (read once from its package)', modules: ['shell-syntax/'] },
  runtime: { what: 'the log, the package version, idle exit, the stop watchdog and test fault injection', modules: ['logger', 'package-info', 'idle-exit', 'stop-watchdog', 'fault-injection'] },
} as const satisfies Record<string, { what: string; modules: readonly string[] }>;

export type Effect = keyof typeof EFFECTS;

/** The SQLite stores (effects/store/<name>-store.ts, one file each under the state directory). */
export const STORES = ['audit', 'bindings', 'grants', 'leases', 'lifecycle', 'notes', 'notify', 'oauth', 'registry', 'supervisor', 'webauth'] as const;
export type StoreName = (typeof STORES)[number];

/** The database file each store's tables live in (`<name>.db` under the state directory):
 * its own, except the launch profiles' store, whose tables are in registry.db next to the
 * sessions they describe (effects/store/lifecycle-store.ts). docs/architecture.md names the
 * files, so a reader looking for the data finds it. */
export const STORE_DATABASE: Record<StoreName, string> = {
  audit: 'audit',
  bindings: 'bindings',
  grants: 'grants',
  leases: 'leases',
  lifecycle: 'registry',
  notes: 'notes',
  notify: 'notify',
  oauth: 'oauth',
  registry: 'registry',
  supervisor: 'supervisor',
  webauth: 'webauth',
};

/** effects/store modules that name no one store: the set of them, the opener, backups. A
 * folder that imports one uses the stores it names as `stores.<name>`. */
export const STORE_PLUMBING = ['store/store-set', 'store/database', 'store/backup'] as const;

export interface CapabilityEffects {
  /** What the folder is for, in a few words. */
  does: string;
  may: readonly Effect[];
  stores: readonly StoreName[];
}

export const CAPABILITIES = {
  policy: { does: 'pure decisions (read, input, grants, redaction, status)', may: [], stores: [] },
  config: { does: 'config.yaml schema and parsing', may: [], stores: [] },
  access: { does: 'the one gate: read and input targets, identity re-read through delivery', may: ['tmux read', 'tmux write'], stores: ['bindings'] },
  reads: { does: 'THE reader: tail, status, follow', may: ['tmux read'], stores: [] },
  input: { does: 'guarded input attempts, bindings, terminal_run', may: ['tmux read', 'tmux write', 'process read', 'files', 'runtime', 'shell parsing'], stores: ['audit', 'bindings'] },
  live: { does: 'live output and wait resume tokens', may: ['tmux read'], stores: [] },
  supervisor: { does: 'watches, events, auto-continue, usage-limit parks, verifiers', may: ['tmux read', 'process spawn'], stores: ['bindings', 'supervisor'] },
  notes: { does: 'operator notes and attachments', may: ['files'], stores: ['notes'] },
  sources: { does: 'project source reads and search', may: ['git', 'files'], stores: [] },
  projects: { does: 'project profiles, readiness, deploy previews', may: ['process spawn'], stores: [] },
  oauth: { does: 'OAuth authorization servers (observer, gateway)', may: [], stores: ['oauth', 'webauth'] },
  webauth: { does: 'operator accounts and login sessions', may: ['password hashing', 'files'], stores: ['webauth'] },
  transcripts: { does: 'transcript cursors and reads of gone sessions', may: ['tmux read', 'tmux pipe'], stores: [] },
  registry: { does: 'every session seen, reconciled on tmux notifications', may: ['tmux read'], stores: ['registry'] },
  grants: { does: 'dashboard read/input grants and their views', may: ['tmux read', 'process read'], stores: ['grants'] },
  lifecycle: { does: 'launch profiles: start, close, restart, resize, recovery; on nodes too; forget a gone session', may: ['tmux read', 'tmux sessions', 'ssh'], stores: ['audit', 'lifecycle', 'registry', 'supervisor'] },
  nodes: { does: 'other hosts over ssh: per-node gate and reader, health', may: ['tmux read', 'ssh'], stores: [] },
  attention: { does: 'notices for a person: requests for a human, notify_user, supervisor notices, the outbox the notifier process delivers from', may: [], stores: ['notify'] },
  audit: { does: 'input and read audit, retention', may: [], stores: ['audit'] },
  rpc: { does: 'tRPC procedures, role routers, sockets', may: ['tmux read', 'tmux pipe', 'files'], stores: ['grants', 'supervisor', 'webauth'] },
  bin: { does: 'command-line entry points (composition roots of the CLIs)', may: ['process spawn', 'files', 'runtime'], stores: ['audit', 'oauth', 'webauth'] },
} as const satisfies Record<string, CapabilityEffects>;

export type Capability = keyof typeof CAPABILITIES;

/** The stores a capability declares, and the state directory they live in: what its
 * factory is given instead of the whole StoreSet (issue 26 item 2). */
export type StoresOf<C extends Capability> = Pick<Stores, (typeof CAPABILITIES)[C]['stores'][number]> & { readonly stateDir: string };
