/**
 * `broker.json` in the socket directory: what the running broker says about itself
 * (pid, version, config file and the summary of the config it is enforcing, idle exit).
 * Written by the broker once it listens and removed when it stops, so `terminal-mcp
 * status` and `npm start` report the config that is in force, not the one on disk. A
 * file left by a crashed broker is recognised by its dead pid (and by the pid the
 * socket answers with); readers never trust it alone.
 */
import { z } from 'zod';
import { pidRecordFile } from './pid-record-file.js';

export const BROKER_STATE_FILE_NAME = 'broker.json';

export const brokerStateSchema = z.object({
  pid: z.number().int(),
  /** The broker's start time (proc/process-identity.ts), so `terminal-mcp stop` can tell
   * it from a later process with its pid. Absent in records of older versions. */
  pid_start: z.string().optional(),
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
    transcripts: z
      .object({ enabled: z.boolean(), max_bytes_per_session: z.number().int(), max_total_bytes: z.number().int(), retention_days: z.number().int() })
      .optional(),
  }),
  state_dir: z.string(),
  socket_dir: z.string(),
  tmux_socket: z.string().nullable(),
  /** 0: never exits by itself. */
  idle_exit_seconds: z.number().int().min(0),
});
export type BrokerState = z.infer<typeof brokerStateSchema>;

const file = pidRecordFile(BROKER_STATE_FILE_NAME, brokerStateSchema);

export const brokerStatePath = file.path;
export const writeBrokerState = file.write;
/** The record, or undefined when there is none or it cannot be parsed. */
export const readBrokerState = file.read;
/** Removes the record if it is this process's (never a newer broker's). */
export const removeBrokerState = file.remove;
