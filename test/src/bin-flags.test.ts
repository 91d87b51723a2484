// Every bin answers --help and --version without starting anything (no state dir, no socket dir, no listener), and refuses unknown arguments.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoPath, rootPackage, workspaceBins } from './helpers/repo.js';
import { cleanEnv, runNode } from './helpers/run-node.js';

// From the workspaces' package.json files: a bin added later is checked without editing a list.
const BINS = workspaceBins();
const VERSION = rootPackage().version;

const root = mkdtempSync(join(tmpdir(), 'tmcp-flags-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function privateEnv(name: string): NodeJS.ProcessEnv {
  const dir = join(root, name);
  // Ports 1: a service that started anyway would fail loudly instead of binding.
  return cleanEnv({
    TERMINAL_MCP_STATE_DIR: join(dir, 'state'),
    TERMINAL_MCP_SOCKET_DIR: join(dir, 'run'),
    TERMINAL_MCP_TMUX_SOCKET: 'tmcp-test-flags-never-started',
    TERMINAL_MCP_GATEWAY_PORT: '1',
    TERMINAL_MCP_OBSERVER_PORT: '1',
    TERMINAL_MCP_WEB_PORT: '1',
  });
}

it('finds the bins the docs name', () => {
  expect(BINS.map(([name]) => name)).toEqual(expect.arrayContaining(['terminal-mcp', 'terminal-mcp-broker', 'terminal-mcp-registry', 'terminal-mcp-web']));
});

describe.each(BINS)('%s', (name, path) => {
  it('--version prints its name and version and starts nothing', async () => {
    const env = privateEnv(`${name}-v`);
    const r = await runNode([repoPath(path), '--version'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`${name} ${VERSION}`);
    expect(existsSync(env.TERMINAL_MCP_STATE_DIR!)).toBe(false);
    expect(existsSync(env.TERMINAL_MCP_SOCKET_DIR!)).toBe(false);
  });

  it('--help prints usage and starts nothing', async () => {
    const env = privateEnv(`${name}-h`);
    const r = await runNode([repoPath(path), '--help'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: ${name}`));
    expect(existsSync(env.TERMINAL_MCP_STATE_DIR!)).toBe(false);
    expect(existsSync(env.TERMINAL_MCP_SOCKET_DIR!)).toBe(false);
  });

  it('refuses an unknown argument with exit code 2', async () => {
    const env = privateEnv(`${name}-x`);
    const r = await runNode([repoPath(path), '--no-such-flag'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unexpected argument|unknown command/);
    expect(existsSync(env.TERMINAL_MCP_SOCKET_DIR!)).toBe(false);
  });
});
