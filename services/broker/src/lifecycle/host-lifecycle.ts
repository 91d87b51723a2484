/** A host's session effects for launch profiles (nodes/host-set.ts `Host.lifecycle`):
 * new-session and conditional kill, and real paths of directories resolved ON that host.
 * This host's are effects/tmux/session-lifecycle.ts with a local realpath, a node's are
 * effects/ssh/node-lifecycle.ts: the same shape. */
export type { NodeLifecycleEffects as HostLifecycle } from '../effects/ssh/node-lifecycle.js';
