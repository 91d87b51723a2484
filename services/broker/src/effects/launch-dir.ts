/** The real path of a directory a session may start in (symlinks resolved), or null when
 * it does not exist or is not a directory. The decision on it is policy/launch.ts's. */
import { realpathSync, statSync } from 'node:fs';

export function realDirectory(path: string): string | null {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}
