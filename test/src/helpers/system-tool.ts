/**
 * System tools as the system finds them. Debian keeps useradd, groupadd, usermod and sshd
 * in /usr/sbin, which a PATH narrowed to /usr/bin:/bin (a CI runner, `su` without `-`)
 * lacks, so a tool is looked up on PATH and then in the directories of SYSTEM_PATH; a test
 * that cannot find one skips, naming every directory it looked in.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** systemd's default PATH for services, sbin included: what a unit, and root, finds tools on. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function searchDirs(): string[] {
  return [...new Set([...(process.env.PATH ?? '').split(delimiter), ...SYSTEM_PATH.split(delimiter)].filter((d) => d.startsWith('/')))];
}

/** The absolute path of an executable `name`, or undefined. */
export function findSystemTool(name: string): string | undefined {
  for (const dir of searchDirs()) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** Why a test needing `names` cannot run, or undefined when every one was found. */
export function missingSystemTools(names: readonly string[]): string | undefined {
  const missing = names.filter((n) => findSystemTool(n) === undefined);
  return missing.length === 0 ? undefined : `${missing.join(', ')} not found on PATH nor in ${SYSTEM_PATH.split(delimiter).join(', ')}`;
}
