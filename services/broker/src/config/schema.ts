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

/** Project directories whose sources the observer (and gateway) may read, read-only.
 * Each path must be the top level of a git work tree; callers see only `name`. */
export const sourceRootSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9._-]{1,64}$/, 'name: 1-64 characters of a-z 0-9 . _ -'),
    path: z
      .string()
      .min(2)
      .max(4096)
      .refine((p) => p.startsWith('/') && !p.includes('\0'), 'path must be absolute'),
  })
  .strict();

export const observerSchema = z
  .object({
    source_roots: z
      .array(sourceRootSchema)
      .max(100)
      .default([])
      .refine((roots) => new Set(roots.map((r) => r.name)).size === roots.length, 'source_roots names must be unique'),
  })
  .strict();

export const configSchema = z
  .object({
    permissions: permissionsSchema.default({ terminal_read: true, terminal_input: false }),
    allowed_session_patterns: z.array(pattern).max(500).default(['claude-*', 'codex-*', 'agent-*', 'test-*']),
    max_capture_lines: z.number().int().min(1).max(50_000).default(2000),
    default_tail_lines: z.number().int().min(1).max(10_000).default(200),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    observer: observerSchema.default({ source_roots: [] }),
  })
  .strict()
  .refine((c) => c.default_tail_lines <= c.max_capture_lines, {
    message: 'default_tail_lines must not exceed max_capture_lines',
    path: ['default_tail_lines'],
  });

export type BrokerConfig = z.output<typeof configSchema>;

export const DEFAULT_CONFIG: BrokerConfig = configSchema.parse({});
