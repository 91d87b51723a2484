// Guards: /version works without build-info.json (reports "unknown") and never echoes a malformed commit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GATEWAY_VERSION, readBuildInfo } from './version.js';

describe('readBuildInfo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmcp-buildinfo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return pathToFileURL(join(dir, name));
  };

  it('reads commit and dirty from the file', () => {
    const url = write('ok.json', JSON.stringify({ commit: 'd622cc710e599a8f3dfdca0e89b53d90b06abe29', dirty: false }));
    expect(readBuildInfo(url)).toEqual({ commit: 'd622cc710e599a8f3dfdca0e89b53d90b06abe29', dirty: false });
  });

  it('reports unknown when the file is missing or unreadable', () => {
    expect(readBuildInfo(pathToFileURL(join(dir, 'missing.json')))).toEqual({ commit: 'unknown', dirty: 'unknown' });
    expect(readBuildInfo(write('bad.json', '{not json'))).toEqual({ commit: 'unknown', dirty: 'unknown' });
  });

  it('does not pass through a commit that is not a hex id', () => {
    expect(readBuildInfo(write('odd.json', JSON.stringify({ commit: '<script>', dirty: 'yes' })))).toEqual({ commit: 'unknown', dirty: 'unknown' });
  });

  it('knows the package version', () => {
    expect(GATEWAY_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
