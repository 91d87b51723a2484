/** The notifier's version, from its package.json (read once at start). */
import { readFileSync } from 'node:fs';

export const NOTIFIER_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
