/**
 * A copy of the built checkout that other Unix users can read, for tests that run our
 * services as service users (deploy-separate-users). The developer's own checkout may sit
 * where those users cannot enter (a clone inside `mktemp -d`, which is 0700, or under
 * /root or /home): install.sh rightly refuses such a checkout, and the production answer
 * is the same as here, a copy in a place the services can read.
 *
 * Only what the services run is staged: the root package.json, node_modules, deploy/, and
 * each workspace's package.json with its built output. Files already readable by others
 * are hard-linked (cheap, and never chmod-ed: a hard link shares the original's mode, and
 * the developer's checkout is not ours to change); the rest, and everything on another
 * file system, is copied and made readable. Symbolic links are kept as they are: the
 * workspace links in node_modules are relative, so they resolve inside the copy.
 */
import { chmodSync, copyFileSync, linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from './repo.js';

/** Paths from the repository root that the deployed services need at run time. */
const STAGED = [
  'package.json',
  'node_modules',
  'deploy',
  'shared/contract/package.json',
  'shared/contract/dist',
  'shared/broker-client/package.json',
  'shared/broker-client/dist',
  'shared/http-guard/package.json',
  'shared/http-guard/dist',
  'shared/mcp-kit/package.json',
  'shared/mcp-kit/dist',
  'shared/oauth-http/package.json',
  'shared/oauth-http/dist',
  'services/broker/package.json',
  'services/broker/dist',
  'services/gateway/package.json',
  'services/gateway/dist',
  'services/observer/package.json',
  'services/observer/dist',
  'services/notifier/package.json',
  'services/notifier/dist',
  'web/package.json',
  'web/dist',
  'web/build',
];

/** Copies (or links) `from` to `to`, making every directory 0755 and every file o+r. */
function stageEntry(from: string, to: string): void {
  const st = lstatSync(from);
  if (st.isSymbolicLink()) {
    symlinkSync(readlinkSync(from), to);
  } else if (st.isDirectory()) {
    mkdirSync(to, { mode: 0o755 });
    chmodSync(to, 0o755); // the umask may have taken bits off
    for (const name of readdirSync(from)) stageEntry(join(from, name), join(to, name));
  } else if (st.isFile()) {
    if ((st.mode & 0o004) !== 0) {
      try {
        linkSync(from, to);
        return;
      } catch {
        // EXDEV (another file system) or EPERM (protected_hardlinks): copy instead.
      }
    }
    copyFileSync(from, to);
    // Readable by all; executable by all where the owner could execute it.
    chmodSync(to, (st.mode & 0o100) !== 0 ? 0o755 : 0o644);
  }
  // Sockets, FIFOs and devices have no place in a built checkout: left out.
}

/** Stages the built checkout below `dir` (which must exist, mode 0755, and be reachable by
 * every user: e.g. directly under /tmp) and returns the copy's root. */
export function stageReadableCheckout(dir: string): string {
  const root = join(dir, 'checkout');
  mkdirSync(root, { mode: 0o755 });
  chmodSync(root, 0o755);
  for (const rel of STAGED) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = join(root, ...parts.slice(0, i));
      mkdirSync(parent, { recursive: true, mode: 0o755 });
      chmodSync(parent, 0o755);
    }
    stageEntry(repoPath(rel), join(root, rel));
  }
  return root;
}
