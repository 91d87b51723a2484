/** Reads config.yaml from TERMINAL_MCP_CONFIG. No file configured means defaults; a
 * configured file that cannot be read is an error (a typo in the path must not silently
 * fall back to a different policy). */
import { readFileSync } from 'node:fs';
import { parseConfigText, ConfigError } from '../config/parse.js';
import { DEFAULT_CONFIG, type BrokerConfig } from '../config/schema.js';

export function loadConfigFile(path: string | undefined): BrokerConfig {
  if (!path) return DEFAULT_CONFIG;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`], path);
  }
  return parseConfigText(text, path);
}
