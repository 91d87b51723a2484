// Guards the build stamp behind "npm start does not rebuild unchanged sources": any source change or a missing output means "build"; outputs, dependencies and docs do not count.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { BUILD_OUTPUTS, buildIsCurrent, sourceStamp, writeBuildStamp } from './build-stamp.mjs';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

function checkout(): void {
  root = mkdtempSync(join(tmpdir(), 'tmcp-stamp-'));
  write('package.json', '{}');
  write('services/broker/src/main.ts', 'export {};');
  write('web/src/app.html', '<html></html>');
  for (const out of BUILD_OUTPUTS as string[]) write(out, '// built');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
}

describe('build stamp', () => {
  it('is current right after a build, and stays current when only outputs, docs or dependencies change', () => {
    checkout();
    writeBuildStamp(root, sourceStamp(root));
    expect(buildIsCurrent(root)).toBe(true);
    write('services/broker/dist/extra.js', 'x');
    write('docs/operations.md', 'x');
    write('node_modules/foo/index.js', 'x');
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('is stale when a source changes (content or only its mtime) or a source is added', () => {
    checkout();
    writeBuildStamp(root, sourceStamp(root));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'services/broker/src/main.ts'), later, later);
    expect(buildIsCurrent(root)).toBe(false);
    writeBuildStamp(root, sourceStamp(root));
    write('web/src/new.ts', 'export {};');
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('is stale when a build output is missing, whatever the stamp says', () => {
    checkout();
    writeBuildStamp(root, sourceStamp(root));
    rmSync(join(root, 'web/build/handler.js'));
    expect(buildIsCurrent(root)).toBe(false);
  });
});
