/** Where this checkout is, and its bins: the absolute paths client configs and `doctor`
 * use (documented configs never depend on `npx` name resolution). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** services/broker/dist/effects/launch/ is five levels below the checkout. */
export function checkoutRoot(): string {
  return fileURLToPath(new URL('../../../../../', import.meta.url)).replace(/\/$/, '');
}

export function launcherPath(): string {
  return join(checkoutRoot(), 'services/broker/dist/effects/launch/terminal-mcp.js');
}

const PACKAGES_WITH_BINS = ['services/broker', 'services/gateway', 'services/observer', 'web'];

/** Every bin the workspaces declare: its name and the absolute file it runs. */
export function declaredBins(): { name: string; target: string }[] {
  const root = checkoutRoot();
  const bins: { name: string; target: string }[] = [];
  for (const pkg of PACKAGES_WITH_BINS) {
    const manifest = JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    for (const [name, target] of Object.entries(manifest.bin ?? {})) bins.push({ name, target: join(root, pkg, target) });
  }
  return bins;
}
