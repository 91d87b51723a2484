/**
 * Starts a broker: config, stores, tmux adapter, one socket per role. Used by the
 * `terminal-mcp-broker` command and by tests, which pass a private environment.
 */
import { homedir } from 'node:os';
import { resolvePaths, type SocketRole } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import { summarizeConfig } from './config/config-summary.js';
import { ConfigError } from './config/parse.js';
import { configSchema, type BrokerConfig } from './config/schema.js';
import { assembleDeps, type BrokerDeps } from './rpc/deps.js';
import { loadConfigFile } from './effects/config-file.js';
import { crashAfterAuditIgnored } from './effects/fault-injection.js';
import { removeBrokerState, writeBrokerState } from './effects/launch/broker-state-file.js';
import { acquireInstanceLock, ensureSocketDir, resolveSocketGroups } from './effects/socket-files.js';
import { idleExitSeconds, watchForIdle } from './effects/idle-exit.js';
import { recordBrokerRun } from './effects/store/registry-store.js';
import { openStoreSet } from './effects/store/store-set.js';
import { createTmuxAdapter } from './effects/tmux/adapter.js';
import { startAuditRetention } from './audit/retention.js';
import { recoverInterruptedInput } from './input/services.js';
import { createPaneWatcher } from './effects/tmux/pane-watch.js';
import { createTranscriptRecorder } from './effects/transcripts/recorder.js';
import { createLiveDeps } from './live/live-deps.js';
import { createLogger } from './effects/logger.js';
import { startSessionRegistry } from './registry/session-registry.js';
import { recoverSupervisorActions } from './supervisor/actions.js';
import { createSupervisor } from './supervisor/wiring.js';
import { supervisorStore } from './effects/store/supervisor-store.js';
import { serveRoles } from './rpc/serve.js';
import { BROKER_VERSION } from './effects/package-info.js';
import { ensureBootstrapAccount } from './webauth/bootstrap.js';
import { webauthEnv } from './webauth/env.js';

export interface RunningBroker {
  deps: BrokerDeps;
  sockets: Record<SocketRole, string>;
  stop(): Promise<void>;
}

export interface StartBrokerOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides the config file (tests). */
  config?: BrokerConfig;
  log?: Logger;
  /** Called once when TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS is set and no client has been
   * connected for that long (main.ts stops the broker). */
  onIdle?: () => void;
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

export async function startBroker(options: StartBrokerOptions = {}): Promise<RunningBroker> {
  const env = options.env ?? process.env;
  const paths = resolvePaths(env, homedir());
  const config = options.config ?? loadConfigFile(paths.configPath);
  const log = options.log ?? createLogger(logLevel(env, config));
  const socketGroups = resolveSocketGroups(env.TERMINAL_MCP_SOCKET_GROUPS);
  const idleSeconds = idleExitSeconds(env);

  ensureSocketDir(paths.socketDir);
  const lock = acquireInstanceLock(paths.socketDir);
  const cleanups: (() => unknown)[] = [() => lock.release()];
  const stop = async () => {
    for (const fn of cleanups.reverse()) await fn();
  };
  try {
    const stores = openStoreSet(paths.stateDir);
    cleanups.push(() => stores.close());
    // Input attempts a dead broker left PENDING become DELIVERY_UNKNOWN (never re-sent).
    recoverInterruptedInput({ stores, log });
    // audit.db stays bounded: pruned to audit.retention now and periodically (audited).
    const retention = startAuditRetention({ stores, config, log });
    cleanups.push(() => retention.stop());
    const startedAt = new Date();
    recordBrokerRun(stores.db('registry'), { startedAt, pid: process.pid, version: BROKER_VERSION, tmuxSocket: paths.tmuxSocket ?? null });
    // First start: an `admin` account whose one-time password goes to a 0600 file only.
    await ensureBootstrapAccount(webauthEnv({ db: stores.db('webauth'), stateDir: paths.stateDir, log }));

    const tmux = createTmuxAdapter({ socketName: paths.tmuxSocket, logger: log });
    cleanups.push(() => tmux.close());
    // Live output and waits: one read-only, ignore-size control client per watched session.
    const paneWatch = createPaneWatcher({ socketName: paths.tmuxSocket, logger: log });
    cleanups.push(() => paneWatch.close());
    // Transcripts of readable sessions, from the same watchers (closed before them).
    const transcripts = createTranscriptRecorder({ config, paneWatch, stateDir: paths.stateDir, log });
    cleanups.push(() => transcripts.close());

    const deps: BrokerDeps = assembleDeps({
      config,
      tmux,
      stores,
      log,
      info: { version: BROKER_VERSION, startedAt, tmuxSocket: paths.tmuxSocket ?? null },
      live: createLiveDeps(paneWatch),
      transcripts,
    });
    // Queued read-audit records are written before the stores close (cleanups run in
    // reverse order).
    cleanups.push(() => deps.input.reads.flush());
    // registry.db remembers every session seen, and what became of it.
    const registry = startSessionRegistry(deps);
    cleanups.push(() => registry.stop());
    // Supervisor actions a dead broker left mid-send are closed, never re-sent; then the
    // watches are evaluated on pane output (when supervisor.enabled).
    recoverSupervisorActions(supervisorStore(stores.db('supervisor')), Date.now());
    deps.supervisor = createSupervisor(deps, paneWatch);
    deps.supervisor.start();
    cleanups.push(() => deps.supervisor?.stop());
    const servers = await serveRoles(deps, paths.socketDir, socketGroups);
    cleanups.push(() => servers.close());
    writeBrokerState(paths.socketDir, {
      pid: process.pid,
      version: BROKER_VERSION,
      started_at: startedAt.toISOString(),
      config_path: paths.configPath ?? null,
      config: summarizeConfig(config),
      state_dir: paths.stateDir,
      socket_dir: paths.socketDir,
      tmux_socket: paths.tmuxSocket ?? null,
      idle_exit_seconds: options.onIdle ? idleSeconds : 0,
    });
    cleanups.push(() => removeBrokerState(paths.socketDir));
    if (idleSeconds > 0 && options.onIdle) {
      const onIdle = options.onIdle;
      const idle = watchForIdle(servers.servers, idleSeconds, () => {
        log.info({ event: 'broker.idle_exit', idleSeconds }, 'no client for the idle period; exiting');
        onIdle();
      });
      cleanups.push(() => idle.close());
    }
    if (crashAfterAuditIgnored()) {
      log.error({ event: 'broker.fault_injection_ignored' }, 'TERMINAL_MCP_TEST_CRASH_AFTER_AUDIT is set outside a test run and is ignored; remove it');
    }
    log.info({ event: 'broker.started', socketDir: paths.socketDir, stateDir: paths.stateDir, tmuxSocket: paths.tmuxSocket ?? 'default' }, 'broker listening');
    return { deps, sockets: servers.sockets, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
