/** `terminal-mcp status`: what runs and how it is configured, as the running broker
 * reports it (not as the files on disk say). Exit 0 when a broker answers, 3 when none
 * does (the `systemctl status` convention). `--json` prints the same facts as JSON. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolvePaths, SOCKET_ROLES, socketPathFor } from '@terminal-mcp/contract';
import { describeConfigSummary, formatBytes } from '../../config/config-summary.js';
// (via effects/: `../transcripts/` would read as the use-case folder of that name)
import { openTranscriptStore } from '../../effects/transcripts/transcript-files.js';
import { socketAnswers } from '../socket-files.js';
import { findBroker } from './broker-presence.js';
import { probeBrokerReadiness, probeHttp, probeJson, probeNodeHealth } from './broker-probe.js';
import { logDir } from './log-files.js';
import { serviceEndpoints } from './service-endpoints.js';
import { readLiveSupervisorRun } from './supervisor-run-file.js';
import { describeTmuxServer, tmuxServerCheck } from './tmux-probe.js';

/** How the gateway's /mcp is protected, in the words of the npm start banner. */
const PROTECTION = {
  oauth: '/mcp protected by OAuth (and the static bearer token on loopback, when one is set)',
  token: '/mcp protected by a bearer token (terminal-mcp client-config http prints the one npm start made)',
  open: '/mcp OPEN: no token, no OAuth: every local user can read and type through it (TERMINAL_MCP_GATEWAY_ALLOW_OPEN=1)',
} as const;

export async function collectStatus(env: NodeJS.ProcessEnv) {
  const paths = resolvePaths(env, homedir());
  const broker = await findBroker(paths.socketDir);
  const readiness = broker.info ? await probeBrokerReadiness(paths.socketDir) : undefined;
  const nodeHealth = broker.info ? await probeNodeHealth(paths.socketDir) : undefined;
  const sockets = await Promise.all(SOCKET_ROLES.map(async (role) => ({ role, path: socketPathFor(paths.socketDir, role), answers: await socketAnswers(socketPathFor(paths.socketDir, role)) })));
  const services = await Promise.all(
    serviceEndpoints(env).map(async (e) => {
      const [live, ready] = [await probeHttp(e.liveUrl), await probeHttp(e.readyUrl)];
      // The gateway says how /mcp is protected (oauth, token, open) on its liveness answer;
      // the other services' liveness answers need not be JSON (the dashboard's is a page).
      const said = e.service === 'gateway' && live !== undefined ? ((await probeJson(e.liveUrl)) as { protection?: unknown } | undefined)?.protection : undefined;
      const protection: keyof typeof PROTECTION | null = said === 'oauth' || said === 'token' || said === 'open' ? said : null;
      return { service: e.service, url: e.url, ready_url: e.readyUrl, answers: live !== undefined, http_status: ready ?? null, protection };
    }),
  );
  const tmuxSocket = broker.info ? (broker.info.tmux_socket ?? undefined) : paths.tmuxSocket;
  const tmux = readiness ? { server: describeTmuxServer(tmuxSocket), reachable: readiness.tmux.ok, detail: readiness.tmux.detail } : (() => {
    const check = tmuxServerCheck(tmuxSocket);
    return { server: describeTmuxServer(tmuxSocket), reachable: check.running, detail: check.running ? `${check.sessions} session(s)` : check.detail };
  })();
  const supervisor = readLiveSupervisorRun(paths.socketDir);
  // What the transcripts take on disk now (their caps are in the config summary).
  const transcripts = existsSync(paths.stateDir) ? openTranscriptStore(paths.stateDir).usage() : { transcripts: 0, bytes: 0 };
  return {
    broker: broker.info
      ? {
          running: true as const,
          pid: broker.info.pid,
          version: broker.info.version,
          started_at: broker.info.started_at,
          idle_exit_seconds: broker.state?.idle_exit_seconds ?? null,
          config_path: broker.state ? broker.state.config_path : null,
          config: broker.state?.config ?? null,
          stores: readiness?.stores ?? null,
          recording: readiness?.recording ?? null,
          notifier: readiness?.notifier ?? null,
          ready: readiness?.ready ?? false,
        }
      : { running: false as const, lock_holder: broker.lockHolder ?? null },
    state_dir: paths.stateDir,
    socket_dir: paths.socketDir,
    sockets,
    services,
    tmux,
    // Only other hosts: this host's tmux is the row above.
    nodes: (nodeHealth?.nodes ?? []).filter((n) => n.node !== 'local'),
    transcripts: { stored: transcripts.transcripts, bytes: transcripts.bytes },
    supervisor: supervisor ? { pid: supervisor.pid, started_at: supervisor.started_at, owns_broker: supervisor.owns_broker } : null,
    log_dir: existsSync(logDir(paths.stateDir)) ? logDir(paths.stateDir) : null,
  };
}

export type Status = Awaited<ReturnType<typeof collectStatus>>;

export function formatStatus(s: Status): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${label.padEnd(13)}${value}`);
  if (s.broker.running) {
    const b = s.broker;
    const idle = b.idle_exit_seconds === null ? '' : b.idle_exit_seconds > 0 ? `; exits after ${b.idle_exit_seconds} s with no client` : '; never exits by itself';
    row('broker:', `running, pid ${b.pid}, version ${b.version}, since ${b.started_at}${b.ready ? '' : ' (NOT ready)'}${idle}`);
    if (b.config) {
      row('config:', b.config_path ?? '(no file: safe defaults)');
      for (const line of describeConfigSummary(b.config)) row('', line);
    } else {
      row('config:', 'unknown (the broker wrote no broker.json: an older version?)');
    }
    if (b.stores) {
      const bad = b.stores.filter((st) => !st.ok).map((st) => st.name);
      row('stores:', bad.length === 0 ? `${b.stores.length} open` : `NOT open: ${bad.join(', ')}`);
    }
  } else {
    row('broker:', s.broker.lock_holder ? `not answering; pid ${s.broker.lock_holder} holds the lock (starting, or hung)` : 'not running (start it with npm start, or let a desktop client start terminal-mcp)');
  }
  row('state dir:', s.state_dir);
  row('sockets:', s.socket_dir);
  for (const sock of s.sockets) row('', `${sock.role}.sock ${sock.answers ? 'answers' : 'not answering'}`);
  const notifier = s.broker.running ? s.broker.notifier : null;
  if (notifier !== null) {
    const waiting = notifier.waiting === 0 ? 'no notice waiting' : `${notifier.waiting} notice deliveries waiting${notifier.connected ? '' : ' (sent once it starts)'}`;
    row('notifier:', `${notifier.connected ? 'connected' : 'NOT connected (start terminal-mcp-notifier: npm start or its systemd unit)'}, ${waiting}`);
  }
  row('tmux:', `${s.tmux.server}: ${s.tmux.reachable ? 'reachable' : 'NOT reachable'} (${s.tmux.detail})`);
  for (const [i, n] of s.nodes.entries()) {
    const state = `${n.transport}, ${n.execution}${n.latency_ms !== undefined ? `, ${n.latency_ms} ms` : ''}${n.reason !== undefined ? ` (${n.reason})` : ''}${n.next_retry_at !== undefined ? `, retry at ${n.next_retry_at}` : ''}`;
    row(i === 0 ? 'nodes:' : '', `${n.node}: ${state}`);
    if (n.hint !== undefined && n.transport !== 'up') row('', `  ${n.hint}`);
  }
  for (const svc of s.services) {
    const ready = svc.http_status === 200 ? 'ready' : `NOT ready (${svc.ready_url} answers HTTP ${svc.http_status ?? '-'})`;
    row(`${svc.service}:`, `${svc.url} ${svc.answers ? `answers, ${ready}` : 'not answering'}`);
    if (svc.protection !== null) row('', PROTECTION[svc.protection]);
  }
  const cap = s.broker.running ? s.broker.config?.transcripts?.max_total_bytes : undefined;
  row('transcripts:', `${s.transcripts.stored} stored, ${formatBytes(s.transcripts.bytes)}${cap !== undefined ? ` of ${formatBytes(cap)}` : ''} on disk`);
  const recording = s.broker.running ? s.broker.recording : null;
  if (recording?.failing) {
    row('', `RECORDING FAILING since ${recording.since}: ${recording.lines_lost} line(s) of ${recording.sessions} session(s) not written (is the disk of ${s.state_dir} full?); the gap is marked once writes work again`);
  }
  if (recording?.opening !== undefined && recording.opening > 0) row('', `recordings still opening: ${recording.opening} (the broker started recently)`);
  row('supervisor:', s.supervisor ? `npm start, pid ${s.supervisor.pid}, since ${s.supervisor.started_at}` : 'none (no npm start running)');
  row('logs:', s.log_dir ?? '(none yet; systemd services log to the journal)');
  return `${lines.join('\n')}\n`;
}

export async function statusCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const status = await collectStatus(env);
  process.stdout.write(args.includes('--json') ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
  return status.broker.running ? 0 : 3;
}
