/**
 * Where a lifecycle call acts: this host, or a node (docs/nodes.md). The use cases (start,
 * close, restart) run the same gates in the same order on either; only the parts that
 * touch a host come from here:
 *
 *  - its tmux listing (the session a name is, the names taken) and its session effects
 *    (new-session / conditional kill, effects/tmux/session-lifecycle.ts; on a node through
 *    its ssh channel, effects/ssh/node-lifecycle.ts);
 *  - the process tree of a pane (the guarded-command gate), read on that host;
 *  - the real path of a start directory and of the profile's roots, resolved ON that host
 *    (a local check of a remote path proves nothing);
 *  - the input policy's name check for `close_unmanaged` (the node's own patterns);
 *  - how callers name things there: `gpu:agent-1` and `gpu:$3` on a node, as every other
 *    tool names them, in answers, the audit and the lifecycle store.
 *
 * Which host: a profile's `node` for a start (the operator decides where a program runs,
 * never the client), and the HostSet's resolution (nodes/host-set.ts) for `node:session`
 * in a close or restart. A node that is not connected is NODE_UNAVAILABLE with its hint, before
 * anything is done, and a failure because it went down meanwhile becomes NODE_UNAVAILABLE
 * too (`on`).
 */
import { AppError } from '@terminal-mcp/contract';
import type { SessionLifecycleTmux } from '../effects/tmux/session-lifecycle.js';
import type { SessionFacts, TmuxAdapter } from '../effects/tmux/types.js';
import type { Host, HostSet } from '../nodes/host-set.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import type { AuditedTarget } from './lifecycle-audit.js';

export interface LaunchHost {
  /** undefined: this host. */
  readonly node: string | undefined;
  /** A session's name or id as callers see it (`gpu:agent-1`, `gpu:$3` on a node). */
  qualified(nameOrId: string): string;
  readonly tmux: Pick<TmuxAdapter, 'listSessions' | 'findSession'>;
  readonly sessions: SessionLifecycleTmux;
  processTree(panePid: number, currentCommand: string): Promise<PaneProcessFacts>;
  /** For each path, its real path on this host when it is a directory, else null. */
  realDirectories(paths: readonly string[]): Promise<(string | null)[]>;
  /** The input policy's gates on a session name of this host (close_unmanaged). */
  checkInputName(session: string): void;
  /** The whole input decision of a send on the session's resolved target (patterns,
   * grant, guarded and foreground commands on its pane's process tree read now). */
  checkInputTarget(session: string): Promise<void>;
  /** Runs `act` on the host: a failure because a node went down is NODE_UNAVAILABLE. */
  on<T>(act: () => Promise<T>): Promise<T>;
}

/** A lifecycle call's view of `host` (nodes/host-set.ts), when the host can act now: a node
 * must be configured with session effects (`nodeName` names it when it is not) and be
 * connected; NODE_UNAVAILABLE (with the node's hint) otherwise, before anything is done. */
export function launchHost(host: Host | undefined, nodeName?: string): LaunchHost {
  const lifecycle = host?.lifecycle;
  if (host === undefined || lifecycle === undefined) {
    const node = host?.name ?? nodeName ?? '';
    throw new AppError('NODE_UNAVAILABLE', `sessions on node ${node} cannot be started or closed by this broker`, `Check that node ${node} is configured under nodes: and restart the broker.`);
  }
  host.connected();
  return {
    node: host.node,
    qualified: (nameOrId) => host.qualify(nameOrId),
    tmux: host.tmux,
    sessions: lifecycle.sessions,
    processTree: (panePid, currentCommand) => host.processTree(panePid, currentCommand),
    realDirectories: (paths) => lifecycle.realDirectories(paths),
    checkInputName: (session) => void host.access.checkInputName({ session }, 'text'),
    async checkInputTarget(session) {
      const target = await host.access.inputTarget({ session }, 'keys');
      host.access.checkInputTarget(target, await host.processTree(target.identity.panePid, target.currentCommand));
    },
    // Not `host.on`: the host was checked connected above; a failure because a node went
    // down meanwhile is NODE_UNAVAILABLE.
    on: async (act) => {
      try {
        return await act();
      } catch (err) {
        throw host.outageOf(err);
      }
    },
  };
}

/** Where a profile's sessions start: its node, else this host. */
export function profileHost(hosts: HostSet, profile: { node?: string | undefined }): LaunchHost {
  return launchHost(hosts.of(profile.node), profile.node);
}

/** The host of a session a caller names (`gpu:agent-1` or `agent-1`) and its name there. */
export function namedSessionHost(hosts: HostSet, qualified: string): { host: LaunchHost; name: string } {
  const { host, ref } = hosts.resolveSession(qualified);
  return { host: launchHost(host), name: ref };
}

/** The audit row's pinned identity of a session on `host`. */
export function auditedTargetOn(host: LaunchHost, s: SessionFacts): AuditedTarget {
  return {
    serverPid: s.serverPid,
    sessionId: host.qualified(s.sessionId),
    sessionCreated: s.created,
    paneId: s.activePane?.paneId ?? null,
    panePid: s.activePane?.panePid ?? null,
  };
}
