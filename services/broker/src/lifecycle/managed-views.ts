/** What the dashboard shows of launch profiles (never their environment) and of the
 * sessions they started: the newest record per name, with recovery's state and count. */
import type { LaunchProfileView, ManagedSessionState } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';
import type { LifecycleServices } from './lifecycle-deps.js';
import { namePatternOf } from '../policy/launch.js';

const HOUR_MS = 3_600_000;

export function listLaunchProfiles(config: BrokerConfig): { enabled: boolean; profiles: LaunchProfileView[] } {
  return {
    enabled: config.permissions.session_lifecycle,
    profiles: config.launch_profiles.map((p) => ({ name: p.name, command: [...p.command], roots: [...p.roots], name_pattern: namePatternOf(p), recover: p.recover, ...(p.node !== undefined && { node: p.node }) })),
  };
}

export function listManagedSessions(deps: { config: BrokerConfig; lifecycle: Pick<LifecycleServices, 'store'> }): ManagedSessionState[] {
  const since = Date.now() - HOUR_MS;
  return deps.lifecycle.store.latestPerName().map((m) => {
    const profile = deps.config.launch_profiles.find((p) => p.name === m.profile);
    return {
      session: m.name,
      profile: m.profile,
      session_id: m.sessionId,
      state: m.state === 'REPLACED' ? 'RUNNING' : m.state,
      recover: profile?.recover ?? 'never',
      restarts_last_hour: deps.lifecycle.store.restartsSince(m.id, since),
      max_restarts_per_hour: profile?.max_restarts_per_hour ?? 0,
      detail: m.detail,
    };
  });
}
