/** The gateway's name and version (from its package.json) and the commit it was built
 * from (from `dist/build-info.json`, written by scripts/write-build-info.mjs at build
 * time). A missing or unreadable build-info file means "unknown", never a failure. */
import { readFileSync } from 'node:fs';

export const GATEWAY_NAME = 'terminal-mcp-gateway';

export const GATEWAY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface VersionInfo {
  name: string;
  version: string;
  commit: string;
  dirty: boolean | 'unknown';
}

export function readBuildInfo(url: URL = new URL('./build-info.json', import.meta.url)): Pick<VersionInfo, 'commit' | 'dirty'> {
  try {
    const raw = JSON.parse(readFileSync(url, 'utf8')) as { commit?: unknown; dirty?: unknown };
    const commit = typeof raw.commit === 'string' && /^[0-9a-f]{7,64}$/.test(raw.commit) ? raw.commit : 'unknown';
    const dirty = typeof raw.dirty === 'boolean' ? raw.dirty : 'unknown';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: 'unknown' };
  }
}

export function versionInfo(): VersionInfo {
  return { name: GATEWAY_NAME, version: GATEWAY_VERSION, ...readBuildInfo() };
}
