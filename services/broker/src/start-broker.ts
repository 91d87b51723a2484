/**
 * The broker's composition root: the one place anything long-lived is built. `createBroker`
 * builds, in order, the stores, the tmux adapter and pane watcher, what procedures use
 * (`assembleDeps`: input services, THE access gate, THE reader, the webauth and OAuth
 * environments, the supervisor), the session registry and one socket per role; `stop()`
 * closes them in reverse. Used by the `terminal-mcp-broker` command and by tests, which
 * pass a private environment; broker unit tests assemble the deps through the test kit
 * (testing/deps.testkit.ts), over the same `assembleDeps`.
 */
import { homedir } from 'node:os';
import { resolvePaths, type OAuthServer, type SocketRole } from '@terminal-mcp/contract';
import type { LogSink } from '@terminal-mcp/http-guard/log-sink';
import type { Logger } from 'pino';
import { bindingsOn, createAccessGate } from './access/gate.js';
import { createAttentionCenter } from './attention/center.js';
import { createNoticeOutbox } from './attention/notice-outbox.js';
import { noticeOfSupervisorEvent } from './attention/supervisor-notices.js';
import { summarizeConfig } from './config/config-summary.js';
import { ConfigError } from './config/parse.js';
import { configSchema, type BrokerConfig } from './config/schema.js';
import type { BrokerDeps, BrokerParts } from './rpc/deps.js';
import { loadConfigFile } from './effects/config-file.js';
import { crashAfterAuditIgnored, stopFaultRequested } from './effects/fault-injection.js';
import { removeBrokerState, writeBrokerState } from './effects/launch/broker-state-file.js';
import { processStartTime } from './effects/proc/process-identity.js';
import { acquireInstanceLock, ensureSocketDir, resolveSocketGroups, type InstanceLock } from './effects/socket-files.js';
import type { EarlySockets } from './effects/early-sockets.js';
import { idleExitSeconds, watchForIdle } from './effects/idle-exit.js';
import { recordBrokerRun } from './effects/store/registry-store.js';
import { openStoreSet } from './effects/store/store-set.js';
import { createTmuxAdapter } from './effects/tmux/adapter.js';
import { nodeAdapters, nodeInputEffects } from './effects/ssh/node-adapters.js';
import { nodeLifecycleEffects } from './effects/ssh/node-lifecycle.js';
import { createNodeSet } from './nodes/node-set.js';
import { startAuditRetention } from './audit/retention.js';
import { closeInFlightInput, createInputServices, recoverInterruptedInput, type InputServices } from './input/services.js';
import { createPaneLocks } from './input/pane-lock.js';
import { createPaneWatcher } from './effects/tmux/pane-watch.js';
import { watchHostSecrets } from './effects/known-secrets/host-secrets.js';
import { createNodeTranscriptRecorder } from './effects/transcripts/node-recorder.js';
import { createTranscriptRecorder } from './effects/transcripts/recorder.js';
import { createLiveDeps } from './live/live-deps.js';
import { createLifecycleServices } from './lifecycle/lifecycle-deps.js';
import { startRecovery } from './lifecycle/recovery.js';
import { createLogger } from './effects/logger.js';
import { oauthEnv, type OAuthLoginEnv } from './oauth/env.js';
import { createRunningWork } from './projects/running-work.js';
import { createSessionReader } from './reads/session-reader.js';
import { nodeSupervisorRouting } from './nodes/node-supervisor.js';
import { createHostSet, localHost } from './nodes/host-set.js';
import { createCutMemo } from './reads/cut-memo.js';
import { realDirectory } from './effects/launch-dir.js';
import { createNodeRegistries, createSessionRegistry } from './registry/session-registry.js';
import { createTranscriptReads } from './transcripts/transcript-reads.js';
import { recoverSupervisorActions } from './supervisor/actions.js';
import { createSupervisor } from './supervisor/wiring.js';
import { processTimeZone } from './effects/proc/process-time-zone.js';
import { limitResumeSend } from './supervisor/limit-send.js';
import { serveRoles } from './rpc/serve.js';
import { BROKER_VERSION } from './effects/package-info.js';
import { ensureBootstrapAccount } from './webauth/bootstrap.js';
import { webauthEnv } from './webauth/env.js';

/** Each stop step's own bound. bin/main.ts bounds the whole stop (4 s) and, beyond it, a
 * watchdog thread bounds a stop whose event loop no longer turns. */
export const STOP_STEP_DEADLINE_MS = 1_500;
/** How long input attempts in flight at a stop may take to finish with their own outcome. */
const INPUT_SETTLE_MS = 1_000;

/** True when `work` settles within `ms`, false when the deadline comes first. */
function withDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([work.then(() => true), deadline]).finally(() => clearTimeout(timer));
}

export interface RunningBroker {
  deps: BrokerDeps;
  sockets: Record<SocketRole, string>;
  /** Closes everything createBroker built, in reverse order, each step bounded by
   * STOP_STEP_DEADLINE_MS; `onStep` hears each step's name as it begins. */
  stop(onStep?: (step: string) => void): Promise<void>;
  /** The step stop() is in (e.g. "tmux adapter"), or undefined: what a stop that
   * overran its deadline was waiting on (bin/main.ts). */
  stoppingStep(): string | undefined;
}

export interface StartBrokerOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides the config file (tests). */
  config?: BrokerConfig;
  log?: Logger;
  /** Where the broker's own logger writes (bin/main.ts drains it before exiting). */
  logSink?: LogSink;
  /** Called once when TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS is set and no client has been
   * connected for that long (main.ts stops the broker). */
  onIdle?: () => void;
  /** Sockets main.ts opened before loading the rest (effects/early-sockets.ts), under the
   * instance lock it took: served once the broker is built; closed if the start fails. */
  early?: { sockets: EarlySockets; lock: InstanceLock };
}

/** Builds what procedures use over the long-lived `parts`, in dependency order: input
 * services, THE access gate, THE reader over it, the webauth and OAuth environments, and
 * the supervisor engine (passive until started). `input` is shared when given (the same
 * stores must not get a second read-audit batcher). Nothing is created lazily elsewhere:
 * a procedure finds what it needs here. */
export function assembleDeps(parts: BrokerParts, input?: InputServices): BrokerDeps {
  const { config, tmux, stores, log } = parts;
  const services = input ?? createInputServices({ stores, log, tmuxSocket: parts.info.tmuxSocket, locks: parts.paneLocks, tmux, control: parts.inputControl });
  const access = createAccessGate({
    config,
    tmux,
    grants: stores.grants,
    // This host's bindings; a node's are its own gate's (nodes/node-set.ts).
    bindings: bindingsOn(services.bindings, null),
    delivery: services.delivery,
  });
  // One memo of cut pane windows for every reader of this broker (this host's and each
  // node's): it returns only what the cut would (reads/cut-memo.ts), and goes with the broker.
  const cuts = createCutMemo();
  const reader = createSessionReader({ config, tmux, access, reads: services.reads, identity: services.delivery, paneTimeZone: processTimeZone, cuts });
  const webauth = webauthEnv({ store: stores.webauth, stateDir: stores.stateDir, log });
  const oauthOf = (server: OAuthServer): OAuthLoginEnv => ({ ...oauthEnv({ store: stores.oauth, config, log, server }), webauth });
  const attention = createAttentionCenter();
  // Notices and supervisor events wait in notify.db for the notifier process, which sends
  // them: the broker itself opens no network connection.
  const noticeOutbox = createNoticeOutbox({ config, store: stores.notify, log });
  attention.onNotice((notice) => noticeOutbox.enqueueNotice(notice));
  // Other hosts' tmux over ssh: a gate and a reader per node, over the same read audit.
  const adapterFor = parts.nodeAdapterFor;
  const nodes =
    adapterFor !== undefined && config.nodes.length > 0
      ? createNodeSet({ config, reads: services.reads, cuts, bindings: services.bindings, grants: stores.grants, adapterFor, inputFor: parts.nodeInputFor, recorderFor: parts.nodeRecorderFor })
      : undefined;
  const transcriptReads = createTranscriptReads({ config, tmux, access, transcripts: parts.transcripts });
  const lifecycle = createLifecycleServices({ tmuxSocket: parts.info.tmuxSocket, stores, nodes: config.nodes, nodeLifecycleFor: parts.nodeLifecycleFor });
  // This machine as one Host, each node as another (nodes/host-set.ts): where a target is
  // is decided there, once per call.
  const hosts = createHostSet(
    localHost({
      policy: config,
      tmux,
      access,
      reader,
      delivery: services.delivery,
      runSignals: services.run,
      processTree: services.processTree,
      transcripts: transcriptReads,
      lifecycle: { sessions: lifecycle.tmux, realDirectories: (paths) => Promise.resolve(paths.map(realDirectory)) },
    }),
    nodes,
    (node) => lifecycle.nodes?.get(node),
  );
  // Watches on node:session read through the node's reader (nodes/node-supervisor.ts).
  const watchRouting = nodeSupervisorRouting(hosts);
  // A usage-limit resume types through the input path over the deps built below (it is
  // only ever called after assembleDeps returned).
  const supervisor = createSupervisor(
    { config, tmux, stores, log, reader: watchRouting.reader, remote: watchRouting.remote, limitSend: () => limitResumeSend(deps), onEvent: (event) => {
      noticeOutbox.enqueueSupervisorEvent(event);
      const notice = noticeOfSupervisorEvent(event);
      if (notice) attention.raise(notice);
    } },
    parts.live.paneWatch,
  );
  const deps: BrokerDeps = { ...parts, input: services, access, reader, webauth, oauth: { gateway: oauthOf('gateway'), observer: oauthOf('observer') }, supervisor, transcriptReads, running: createRunningWork(), lifecycle, nodes, hosts, attention, noticeOutbox };
  return deps;
}

/** TERMINAL_MCP_LOG_LEVEL, the one log-level switch of every service, wins over
 * config.yaml's log_level. */
function logLevel(env: NodeJS.ProcessEnv, config: BrokerConfig): BrokerConfig['log_level'] {
  const raw = env.TERMINAL_MCP_LOG_LEVEL;
  if (!raw) return config.log_level;
  const parsed = configSchema.shape.log_level.safeParse(raw);
  if (!parsed.success) throw new ConfigError([`TERMINAL_MCP_LOG_LEVEL must be one of ${configSchema.shape.log_level.unwrap().options.join(', ')}, not ${JSON.stringify(raw.slice(0, 40))}`], 'environment');
  return parsed.data;
}

export async function createBroker(options: StartBrokerOptions = {}): Promise<RunningBroker> {
  const env = options.env ?? process.env;
  const paths = resolvePaths(env, homedir());
  const config = options.config ?? loadConfigFile(paths.configPath);
  const log = options.log ?? createLogger(logLevel(env, config), undefined, options.logSink);
  const socketGroups = resolveSocketGroups(env.TERMINAL_MCP_SOCKET_GROUPS);
  const idleSeconds = idleExitSeconds(env);

  if (options.early === undefined) ensureSocketDir(paths.socketDir);
  const lock = options.early?.lock ?? acquireInstanceLock(paths.socketDir);
  // Each step of stop() is named, so a stop that overruns says what it waits on.
  const cleanups: { step: string; close: () => unknown }[] = [{ step: 'instance lock', close: () => lock.release() }];
  const onStop = (step: string, close: () => unknown) => cleanups.push({ step, close });
  let current: string | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (onStep?: (step: string) => void) =>
    (stopped ??= (async () => {
      const began = Date.now();
      for (const { step, close } of cleanups.reverse()) {
        current = step;
        onStep?.(step);
        const t = Date.now();
        // A step that overruns its deadline is left running and the stop goes on: the
        // later steps (closing input attempts, the stores) matter more than its end.
        const ended = await withDeadline(Promise.resolve().then(close), STOP_STEP_DEADLINE_MS).catch((err: unknown) => {
          log.warn({ event: 'broker.stop_step_failed', step, err: (err as Error).message }, 'a stop step failed; going on');
          return true;
        });
        if (!ended) log.warn({ event: 'broker.stop_step_overdue', step, deadlineMs: STOP_STEP_DEADLINE_MS }, 'a stop step overran its deadline; going on without it');
        log.debug({ event: 'broker.stop_step', step, ms: Date.now() - t }, 'stopped a part');
      }
      current = undefined;
      log.info({ event: 'broker.stopped', ms: Date.now() - began }, 'stopped');
    })());
  // Early sockets not yet served when the start fails: what they hold is answered 503.
  let served = false;
  const early = options.early?.sockets;
  if (early) onStop('early sockets', () => (served ? undefined : early.close()));
  try {
    const stores = openStoreSet(paths.stateDir);
    onStop('stores', () => stores.close());
    // Each store was checked as it opened (effects/store/store-set.ts DAMAGE_POLICY): a
    // damaged one that must not start empty stopped us above, naming the file.
    for (const r of stores.opened) {
      if (r.outcome === 'opened') log.debug({ event: 'store.checked', store: r.name, ms: r.ms }, 'store checked');
      else log.error({ event: 'store.damaged', store: r.name, outcome: r.outcome, detail: r.detail, setAsideTo: r.setAsideTo, ms: r.ms }, r.outcome === 'set-aside' ? 'damaged store set aside; it starts empty' : 'damaged store: it refuses every write (audit.db: input is refused, readiness is false); run terminal-mcp doctor');
    }
    log.info({ event: 'stores.checked', ms: Math.round(stores.opened.reduce((sum, r) => sum + r.ms, 0)) }, 'stores checked');
    // Input attempts a dead broker left PENDING become DELIVERY_UNKNOWN (never re-sent);
    // not possible on a damaged audit.db, which refuses every write (and so every input).
    if (stores.opened.some((r) => r.name === 'audit' && r.outcome === 'refusing-writes')) log.error({ event: 'audit.recovery_skipped' }, 'audit.db is damaged: PENDING input attempts were not marked DELIVERY_UNKNOWN');
    else recoverInterruptedInput({ stores, log });
    // audit.db stays bounded: pruned to audit.retention now and periodically (audited).
    const retention = startAuditRetention({ stores, config, log });
    onStop('audit retention', () => retention.stop());
    const startedAt = new Date();
    recordBrokerRun(stores.db('registry'), { startedAt, pid: process.pid, version: BROKER_VERSION, tmuxSocket: paths.tmuxSocket ?? null });

    // The host's own secrets, as keyed hashes, for every redaction (before any read).
    if (config.known_secrets.enabled) {
      const known = watchHostSecrets(
        { home: env.HOME ?? homedir(), projectRoots: config.observer.source_roots.map((r) => r.path), files: config.known_secrets.files },
        config.known_secrets.refresh_seconds,
        (index, files) => log.info({ event: 'known_secrets.indexed', files, windows: index.windows }, 'host secrets indexed'),
      );
      onStop('known secrets', () => known.stop());
    }

    const tmux = createTmuxAdapter({ socketName: paths.tmuxSocket, logger: log });
    onStop('tmux adapter', () => tmux.close());
    // Live output and waits: one read-only, ignore-size control client per watched session.
    const paneWatch = createPaneWatcher({ socketName: paths.tmuxSocket, logger: log });
    onStop('pane watchers', () => paneWatch.close());
    // Transcripts of readable sessions, through tmux's pipe-pane (no client attached;
    // closed before the adapter, so its pipes are closed through it).
    const transcripts = createTranscriptRecorder({ config, tmux, stateDir: paths.stateDir, log });
    onStop('transcript recorder', () => transcripts.close());
    const adapters = nodeAdapters(config, paths.stateDir, log);

    const deps = assembleDeps({
      config,
      tmux,
      stores,
      log,
      info: { version: BROKER_VERSION, startedAt, tmuxSocket: paths.tmuxSocket ?? null },
      live: createLiveDeps(paneWatch),
      transcripts,
      // In memory: the instance lock above rules out a second broker typing here.
      paneLocks: createPaneLocks(),
      inputControl: tmux.inputControl,
      nodeAdapterFor: adapters,
      nodeInputFor: nodeInputEffects(config, paths.stateDir),
      // A node's sessions are recorded by polling through its reader (no pipe can reach
      // this host from a node): effects/transcripts/node-recorder.ts.
      nodeRecorderFor: (node, n) =>
        createNodeTranscriptRecorder({
          config: n.policy,
          node: node.name,
          stateDir: paths.stateDir,
          log,
          gate: n.access,
          source: { connected: () => n.tmux.state === 'connected', sessions: () => n.tmux.listSummaries(), look: (name, identity) => n.reader.recordingLook(name, identity) },
        }),
      nodeLifecycleFor: nodeLifecycleEffects(config, paths.stateDir),
    });
    // terminal_run's FIFOs go with the broker: a status line that runs later finds none and
    // goes on at once (one already waiting gives up within 3 s).
    onStop('run channels', () => deps.input.run.close());
    onStop('shell integrations', () => deps.input.shells?.close() ?? Promise.resolve());
    // Each node's control client, then its ssh master connection (ssh -O exit).
    onStop('nodes', () => deps.nodes?.close());
    // Queued read-audit records are written before the stores close (cleanups run in
    // reverse order).
    onStop('read-audit flush', () => deps.input.reads.flush());
    // First start: an `admin` account whose one-time password goes to a 0600 file only.
    await ensureBootstrapAccount(deps.webauth);
    // registry.db remembers every session seen, and what became of it (reconciled on
    // tmux's session notifications; a slow timer records screens).
    // Each pass also starts recording the readable sessions and stops the rest.
    const registry = createSessionRegistry({ ...deps, onReconciled: (live) => deps.transcripts.sync(live, deps.access) });
    registry.start();
    onStop('session registry', () => registry.stop());
    // Each node's sessions too, over its adapter, gate and reader (a down node changes nothing).
    const nodeRegistries = deps.nodes && createNodeRegistries(deps, deps.nodes);
    nodeRegistries?.start();
    onStop('node session registries', () => nodeRegistries?.stop());
    // Supervisor actions a dead broker left mid-send are closed, never re-sent; then the
    // watches are evaluated on pane output (when supervisor.enabled).
    recoverSupervisorActions(stores.supervisor, Date.now());
    deps.supervisor.start();
    onStop('supervisor', () => deps.supervisor.stop());
    const recovery = startRecovery(deps);
    onStop('session recovery', () => recovery.stop());
    // Right after the sockets close (no new call can start): attempts in flight get the
    // time to finish with their own outcome, and any still PENDING then is closed as
    // DELIVERY_UNKNOWN while the stores are open (one that ends later still writes its
    // true outcome over it).
    onStop('input attempts', () => closeInFlightInput({ audit: stores.audit, log }, INPUT_SETTLE_MS));
    const servers = await serveRoles(deps, paths.socketDir, socketGroups, early);
    served = true;
    onStop('role sockets', () => servers.close());
    // The notifier's waiting claim answers at once, so its socket closes without waiting.
    onStop('notifier claims', () => deps.noticeOutbox.close());
    // Nodes connect from now on, a few at a time (effects/ssh/ssh-lane.ts).
    adapters?.startConnecting();
    const fault = stopFaultRequested();
    for (let i = 1; i <= (fault?.hangingSteps ?? 0); i++) onStop(`fault injection: a step that never ends (${i})`, () => new Promise<never>(() => {}));
    if (fault?.blocksLoop) {
      onStop('fault injection: a step that blocks the event loop', () => {
        for (;;);
      });
    }
    writeBrokerState(paths.socketDir, {
      pid: process.pid,
      pid_start: processStartTime(process.pid),
      version: BROKER_VERSION,
      started_at: startedAt.toISOString(),
      config_path: paths.configPath ?? null,
      config: summarizeConfig(config),
      state_dir: paths.stateDir,
      socket_dir: paths.socketDir,
      tmux_socket: paths.tmuxSocket ?? null,
      idle_exit_seconds: options.onIdle ? idleSeconds : 0,
    });
    onStop('broker.json', () => removeBrokerState(paths.socketDir));
    if (idleSeconds > 0 && options.onIdle) {
      const onIdle = options.onIdle;
      const idle = watchForIdle(servers.servers, idleSeconds, () => {
        log.info({ event: 'broker.idle_exit', idleSeconds }, 'no client for the idle period; exiting');
        onIdle();
      });
      onStop('idle watch', () => idle.close());
    }
    if (crashAfterAuditIgnored()) {
      log.error({ event: 'broker.fault_injection_ignored' }, 'TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT is set outside a test run and is ignored; remove it');
    }
    log.info({ event: 'broker.started', socketDir: paths.socketDir, stateDir: paths.stateDir, tmuxSocket: paths.tmuxSocket ?? 'default' }, 'broker listening');
    return { deps, sockets: servers.sockets, stop, stoppingStep: () => current };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The name tests and the bin have always called. */
export const startBroker = createBroker;
