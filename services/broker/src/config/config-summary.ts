/** The few facts of a config an operator checks first (`terminal-mcp status`, the
 * `npm start` banner): is reading on, is input on, which sessions. Pure. Two summaries
 * are equal exactly when these facts agree, which is how `npm start` tells that a
 * running broker does not run the config it was asked for. */
import type { BrokerConfig } from './schema.js';

export interface ConfigSummary {
  terminal_read: boolean;
  terminal_input: boolean;
  allowed_session_patterns: string[];
  /** Unset in config.yaml: input follows the read whitelist. */
  input_allowed_session_patterns: string[] | null;
  input_denied_session_patterns: string[];
  log_level: string;
  /** Recording and its disk bounds (absent in the broker.json of older brokers). */
  transcripts?: {
    enabled: boolean;
    max_bytes_per_session: number;
    max_total_bytes: number;
    retention_days: number;
  };
}

export function summarizeConfig(config: BrokerConfig): ConfigSummary {
  return {
    terminal_read: config.permissions.terminal_read,
    terminal_input: config.permissions.terminal_input,
    allowed_session_patterns: [...config.allowed_session_patterns],
    input_allowed_session_patterns: config.input_policy.allowed_session_patterns ? [...config.input_policy.allowed_session_patterns] : null,
    input_denied_session_patterns: [...config.input_policy.denied_session_patterns],
    log_level: config.log_level,
    transcripts: {
      enabled: config.transcripts.enabled,
      max_bytes_per_session: config.transcripts.max_bytes_per_session,
      max_total_bytes: config.transcripts.max_total_bytes,
      retention_days: config.transcripts.retention_days,
    },
  };
}

/** Field names whose values differ; empty when the summaries agree. Only `a`'s fields
 * are compared (a running older broker's summary has fewer). */
export function configSummaryDifferences(a: ConfigSummary, b: ConfigSummary): string[] {
  return (Object.keys(a) as (keyof ConfigSummary)[]).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

export function describeConfigSummary(s: ConfigSummary): string[] {
  const list = (p: string[]) => (p.length === 0 ? '(none)' : p.join(', '));
  return [
    `read ${s.terminal_read ? 'on' : 'off'}, input ${s.terminal_input ? 'on' : 'off'}, log level ${s.log_level}`,
    `readable sessions: ${list(s.allowed_session_patterns)}`,
    `input sessions: ${s.input_allowed_session_patterns ? list(s.input_allowed_session_patterns) : 'same as readable'}${s.input_denied_session_patterns.length ? `; denied: ${list(s.input_denied_session_patterns)}` : ''}`,
    ...(s.transcripts ? [describeTranscripts(s.transcripts)] : []),
  ];
}

/** `8 MB` for 8388608: the caps as an operator wrote them, roughly. */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(1)} GB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

function describeTranscripts(t: NonNullable<ConfigSummary['transcripts']>): string {
  if (!t.enabled) return 'transcripts: off (no cursors, no replay of gone sessions, no export)';
  return `transcripts: on, at most ${formatBytes(t.max_bytes_per_session)} per session and ${formatBytes(t.max_total_bytes)} in all, kept ${t.retention_days} days after a session ends`;
}
