/** The operator's project_profiles: the only projects an intent may act on. */
import { AppError } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';

export type ProjectProfile = BrokerConfig['project_profiles'][number];

export function findProfile(config: BrokerConfig, name: string): ProjectProfile {
  const profile = config.project_profiles.find((p) => p.name === name);
  if (!profile) {
    const known = config.project_profiles.map((p) => p.name).slice(0, 20);
    throw new AppError('NOT_FOUND', 'no project profile has that name', known.length ? `Configured projects: ${known.join(', ')}.` : 'No project_profiles are configured: ask the operator to add one to config.yaml.');
  }
  return profile;
}

/** Where dispatch sends a task: the binding when the profile names one, else its first session. */
export function dispatchTarget(profile: ProjectProfile): { kind: 'binding'; name: string } | { kind: 'session'; name: string } {
  return profile.binding !== undefined ? { kind: 'binding', name: profile.binding } : { kind: 'session', name: profile.sessions[0]! };
}
