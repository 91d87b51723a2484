/** Turns raw YAML text into a validated config, or a message an operator can act on:
 * which key, which value, what is expected. Unknown keys are reported, never ignored. */
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSchema, type BrokerConfig } from './schema.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[], source: string) {
    super(`invalid config ${source}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function describeValue(root: unknown, path: readonly PropertyKey[]): string {
  let v: unknown = root;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return 'missing';
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  if (v === undefined) return 'missing';
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function parseConfigText(text: string, source: string): BrokerConfig {
  let raw: unknown;
  try {
    raw = text.trim() === '' ? {} : parseYaml(text, { maxAliasCount: 50 });
  } catch (err) {
    throw new ConfigError([`not valid YAML: ${(err as Error).message.split('\n')[0]}`], source);
  }
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(['the top level must be a mapping of keys to values'], source);
  }
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue: z.core.$ZodIssue) => {
    const key = issue.path.map(String).join('.') || '(top level)';
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? `${key}.` : '';
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${where}${k}'`).join(', ')}: remove or fix the spelling`;
    }
    return `key '${key}' has value ${describeValue(raw, issue.path)}: ${issue.message}`;
  });
  throw new ConfigError(problems, source);
}
