/**
 * `broker.json` in the socket directory: what the running broker says about itself
 * (pid, version, config file and the summary of the config it is enforcing, idle exit).
 * Written by the broker once it listens and removed when it stops, so `terminal-mcp
 * status` and `npm start` report the config that is in force, not the one on disk. A
 * file left by a crashed broker is recognised by its dead pid (and by the pid the
 * socket answers with); readers never trust it alone.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const BROKER_STATE_FILE_NAME = 'broker.json';

export const brokerStateSchema = z.object({
  pid: z.number().int(),
  version: z.string(),
  started_at: z.string(),
  config_path: z.string().nullable(),
  config: z.object({
    terminal_read: z.boolean(),
    terminal_input: z.boolean(),
    allowed_session_patterns: z.array(z.string()),
    input_allowed_session_patterns: z.array(z.string()).nullable(),
    input_denied_session_patterns: z.array(z.string()),
    log_level: z.string(),
  }),
  state_dir: z.string(),
  socket_dir: z.string(),
  tmux_socket: z.string().nullable(),
  /** 0: never exits by itself. */
  idle_exit_seconds: z.number().int().min(0),
});
export type BrokerState = z.infer<typeof brokerStateSchema>;

export function brokerStatePath(socketDir: string): string {
  return join(socketDir, BROKER_STATE_FILE_NAME);
}

export function writeBrokerState(socketDir: string, state: BrokerState): void {
  const path = brokerStatePath(socketDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The record, or undefined when there is none or it cannot be parsed. */
export function readBrokerState(socketDir: string): BrokerState | undefined {
  try {
    const parsed = brokerStateSchema.safeParse(JSON.parse(readFileSync(brokerStatePath(socketDir), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the record if it is this process's (never a newer broker's). */
export function removeBrokerState(socketDir: string, pid = process.pid): void {
  if (readBrokerState(socketDir)?.pid !== pid) return;
  try {
    unlinkSync(brokerStatePath(socketDir));
  } catch {
    /* already gone */
  }
}
