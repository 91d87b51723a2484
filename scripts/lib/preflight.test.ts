// Guards npm start's first checks (scripts/lib/preflight.mjs), made before anything is installed or built: a TERMINAL_MCP_CONFIG naming a missing or unreadable file stops with the fix, a state directory open to others is made 0700 when this user owns it.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preflight } from './preflight.mjs';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmcp-preflight-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm start preflight', () => {
  it('stops on a TERMINAL_MCP_CONFIG that names no file, saying how to fix it', () => {
    const missing = join(root, 'nope.yaml');
    const { problems } = preflight({ TERMINAL_MCP_CONFIG: missing, TERMINAL_MCP_STATE_DIR: join(root, 'state') });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(missing);
    expect(problems[0]).toMatch(/does not exist.*unset TERMINAL_MCP_CONFIG to start with the safe defaults/);
  });

  it('stops on a config path that is a directory', () => {
    expect(preflight({ TERMINAL_MCP_CONFIG: root, TERMINAL_MCP_STATE_DIR: join(root, 'state') }).problems[0]).toMatch(/not a file/);
  });

  it('makes a state directory of this user with mode 0755 private, and says so', () => {
    const state = join(root, 'state');
    mkdirSync(state);
    chmodSync(state, 0o755);
    writeFileSync(join(root, 'config.yaml'), '{}\n');
    const { problems, fixed } = preflight({ TERMINAL_MCP_CONFIG: join(root, 'config.yaml'), TERMINAL_MCP_STATE_DIR: state });
    expect(problems).toEqual([]);
    expect(fixed[0]).toMatch(/mode 755; made it 700/);
    expect(statSync(state).mode & 0o777).toBe(0o700);
  });

  it('refuses a state directory that belongs to another user', () => {
    const state = join(root, 'state');
    mkdirSync(state, { mode: 0o700 });
    const { problems } = preflight({ TERMINAL_MCP_STATE_DIR: state }, statSync(state).uid + 1);
    expect(problems[0]).toMatch(/belongs to uid/);
  });

  it('accepts no config file (safe defaults) and a state directory not made yet', () => {
    expect(preflight({ TERMINAL_MCP_STATE_DIR: join(root, 'later') })).toEqual({ problems: [], fixed: [] });
  });
});
