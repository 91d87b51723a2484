/**
 * config.yaml: the operator's policy. Keys are compatible with the original Python
 * Terminal MCP, so existing files keep working. Pure: no I/O here (reading the file is
 * an effect, see effects/config-file.ts).
 */
import { z } from 'zod';

const pattern = z.string().min(1).max(256);

export const permissionsSchema = z
  .object({
    terminal_read: z.boolean().default(true),
    terminal_input: z.boolean().default(false),
  })
  .strict();

export const configSchema = z
  .object({
    permissions: permissionsSchema.default({ terminal_read: true, terminal_input: false }),
    allowed_session_patterns: z.array(pattern).max(500).default(['claude-*', 'codex-*', 'agent-*', 'test-*']),
    max_capture_lines: z.number().int().min(1).max(50_000).default(2000),
    default_tail_lines: z.number().int().min(1).max(10_000).default(200),
    /** Host names (as seen in the Host header) of authenticated tunnels in front of the
     * HTTP services, besides the loopback names. */
    public_hosts: z.array(z.string().min(1).max(253)).max(20).default([]),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .strict()
  .refine((c) => c.default_tail_lines <= c.max_capture_lines, {
    message: 'default_tail_lines must not exceed max_capture_lines',
    path: ['default_tail_lines'],
  });

export type BrokerConfig = z.output<typeof configSchema>;

export const DEFAULT_CONFIG: BrokerConfig = configSchema.parse({});
