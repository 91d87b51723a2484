// Guards the socket directory: private modes, 0660 sockets from the first instant, one broker per directory, and stale cleanup that never removes a live broker's socket.
import { fork, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireInstanceLock,
  BrokerAlreadyRunningError,
  ensureSocketDir,
  listenOnSocket,
  removeStaleSocket,
  resolveSocketGroups,
  socketAnswers,
  SocketGroupsError,
} from './socket-files.js';

let base: string;
let dir: string;
const servers: Server[] = [];
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tmcp-sock-'));
  dir = join(base, 'run');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  rmSync(base, { recursive: true, force: true });
});

describe('socket directory', () => {
  it('is created 0700 and tightened if it was world-accessible', () => {
    ensureSocketDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    rmSync(dir, { recursive: true });
    ensureSocketDir(join(base, 'loose'));
    const loose = join(base, 'loose');
    // simulate an operator mistake
    chmodSync(loose, 0o777);
    ensureSocketDir(loose);
    expect(statSync(loose).mode & 0o007).toBe(0);
  });

  it('serves sockets with mode 0660', async () => {
    ensureSocketDir(dir);
    const server = createServer();
    servers.push(server);
    await listenOnSocket(server, join(dir, 'gateway.sock'));
    expect(statSync(join(dir, 'gateway.sock')).mode & 0o777).toBe(0o660);
    expect(await socketAnswers(join(dir, 'gateway.sock'))).toBe(true);
  });
});

describe('instance lock', () => {
  it('admits one holder per directory and can be taken again after release', () => {
    ensureSocketDir(dir);
    const lock = acquireInstanceLock(dir);
    // Our own pid in the file counts as stale for ourselves only; a live other pid blocks:
    writeFileSync(join(dir, 'broker.lock'), `${process.ppid}\n`);
    expect(() => acquireInstanceLock(dir)).toThrow(BrokerAlreadyRunningError);
    writeFileSync(join(dir, 'broker.lock'), `${process.pid}\n`);
    lock.release();
    expect(existsSync(join(dir, 'broker.lock'))).toBe(false);
    acquireInstanceLock(dir).release();
  });

  it('takes over a lock whose holder is dead', async () => {
    ensureSocketDir(dir);
    const child = fork('-e', ['0'], { execArgv: [] });
    await new Promise((r) => child.once('exit', r));
    writeFileSync(join(dir, 'broker.lock'), `${child.pid}\n`);
    const lock = acquireInstanceLock(dir);
    lock.release();
  });
});

describe('stale socket cleanup', () => {
  it('removes a socket nobody answers on', async () => {
    ensureSocketDir(dir);
    const path = join(dir, 'web.sock');
    // A broker killed with SIGKILL leaves its socket file behind.
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((r) => child.stdout!.once('data', r));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(path)).toBe(true);
    expect(await socketAnswers(path)).toBe(false);
    await removeStaleSocket(path);
    expect(existsSync(path)).toBe(false);
  });

  it('never removes a live broker socket', async () => {
    ensureSocketDir(dir);
    const path = join(dir, 'observer.sock');
    const live = createServer();
    servers.push(live);
    await listenOnSocket(live, path);
    await expect(removeStaleSocket(path)).rejects.toBeInstanceOf(BrokerAlreadyRunningError);
    expect(await socketAnswers(path)).toBe(true);
  });

  it('refuses to delete something that is not a socket', async () => {
    ensureSocketDir(dir);
    const path = join(dir, 'gateway.sock');
    writeFileSync(path, 'not a socket');
    await expect(removeStaleSocket(path)).rejects.toThrow(/not a socket/);
    expect(existsSync(path)).toBe(true);
  });
});

describe('socket groups (TERMINAL_MCP_SOCKET_GROUPS)', () => {
  it('is empty when unset, and resolves names through NSS and numeric ids as given', () => {
    expect(resolveSocketGroups(undefined)).toEqual({});
    expect(resolveSocketGroups(' ')).toEqual({});
    // `root` (gid 0) exists on every Linux machine.
    expect(resolveSocketGroups('gateway=root, web=4242')).toEqual({ gateway: { name: 'root', gid: 0 }, web: { name: '4242', gid: 4242 } });
  });

  it('refuses typos instead of leaving a socket unusable or shared', () => {
    expect(() => resolveSocketGroups('gatway=root')).toThrow(/unknown role "gatway"/);
    expect(() => resolveSocketGroups('gateway=root,gateway=root')).toThrow(/named twice/);
    expect(() => resolveSocketGroups('gateway')).toThrow(/role=group/);
    expect(() => resolveSocketGroups('web=tmcp-no-such-group-here')).toThrow(/no group "tmcp-no-such-group-here"/);
    expect(() => resolveSocketGroups('web=$(touch x)')).toThrow(SocketGroupsError);
  });

  it('hands the socket to the group, still 0660', async () => {
    ensureSocketDir(dir);
    const path = join(dir, 'web.sock');
    const server = createServer();
    servers.push(server);
    const gid = process.getgid!();
    await listenOnSocket(server, path, { name: String(gid), gid });
    const st = statSync(path);
    expect(st.gid).toBe(gid);
    expect(st.mode & 0o777).toBe(0o660);
  });

  it.skipIf(process.getuid?.() === 0)('stops with a hint when the broker user is not in the group', async () => {
    ensureSocketDir(dir);
    const server = createServer();
    servers.push(server);
    await expect(listenOnSocket(server, join(dir, 'web.sock'), { name: 'root', gid: 0 })).rejects.toThrow(/must be a member of group root/);
  });
});
