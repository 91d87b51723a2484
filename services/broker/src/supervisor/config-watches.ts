/** supervisor.watched_session_patterns and watched_bindings become watches: created once
 * (a watch that stopped itself stays stopped until supervisor_watch resumes it), and only
 * for targets the read gate admits now. */
import type { BindingRecord } from '../effects/store/bindings-store.js';
import type { SupervisorStore } from '../effects/store/supervisor-store.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { matchesAny } from '../policy/access.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { SupervisorConfig } from './types.js';

export interface ConfigWatchDeps {
  store: SupervisorStore;
  reader: Pick<SessionReader, 'resolve'>;
  tmux: Pick<TmuxAdapter, 'listSessions'>;
  bindings: (name: string) => BindingRecord | undefined;
  config: SupervisorConfig;
}

export async function seedConfigWatches(deps: ConfigWatchDeps, now: number): Promise<void> {
  const { store, config } = deps;
  const add = (kind: 'session' | 'binding', target: string) => {
    const key = `${kind}:${target}`;
    if (store.watchByKey(key) === undefined) store.upsertWatch({ key, kind, target, doneMarker: 'TERMINAL_MCP_DONE', source: 'config', by: 'broker:config', now });
  };
  for (const name of config.watched_bindings) if (deps.bindings(name) !== undefined) add('binding', name);
  if (config.watched_session_patterns.length === 0) return;
  for (const s of await deps.tmux.listSessions()) {
    if (!matchesAny(config.watched_session_patterns, s.name)) continue;
    try {
      await deps.reader.resolve({ session: s.name });
      add('session', s.name);
    } catch {
      // Only readable sessions are ever watched.
    }
  }
}
