// The privilege split at the OS level, for real: deploy/install.sh creates the service users
// and lays out the state and socket directories as in production (under a temp --root); a
// real broker runs as an operator user against that operator's own tmux server; every
// client runs as its own user and can use its own socket only — EACCES on the other
// sockets, the state directory, every store, the audit key and the tmux socket. Needs
// root (to create users and switch to them); skipped, saying so, otherwise.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageReadableCheckout } from './helpers/readable-checkout.js';
import { findSystemTool, missingSystemTools, SYSTEM_PATH } from './helpers/system-tool.js';
import { testSocketName } from './helpers/tmux-server.js';

const ROLES = ['gateway', 'observer', 'web', 'notifier'] as const;
type Role = (typeof ROLES)[number];
const OPERATOR = 'tmcp-test-op';
const SOCKET_GROUPS = 'gateway=tmcp-gateway,observer=tmcp-observer,web=tmcp-web,notifier=tmcp-notifier';
/** The PATH of a system unit (systemd's default, sbin included): the broker and services
 * run with it as their units do, and install.sh and useradd are found on it as root finds
 * them (Debian keeps useradd in /usr/sbin). */
const BASE_PATH = SYSTEM_PATH;

/** Under /tmp itself, not TMPDIR: the service users must be able to enter it (a private
 * TMPDIR is 0700), and socket paths must stay short. Named with the run's tag, so the
 * run's leftover check (scripts/lib/leftovers.mjs) can tell ours from another run's. */
const RUN_TAG = process.env.TERMINAL_MCP_TEST_RUN;
const SHARED_TMP_PREFIX = `/tmp/tmcp-deploy-${RUN_TAG ? `${RUN_TAG}-` : ''}`;

const isRoot = process.getuid?.() === 0;
const missing = isRoot ? missingSystemTools(['setpriv', 'useradd', 'groupadd', 'usermod', 'userdel', 'groupdel', 'getent', 'tmux', 'unshare', 'findmnt', 'timeout']) : undefined;
// The service users must reach node and the checkout: the system units (ProtectHome=yes)
// and install.sh refuse either under /home, /root or /run/user. The checkout is staged into
// a readable copy below (wherever the developer cloned it); node is the machine's own.
const homeNode = /^\/(home|root|run\/user)\//.test(process.execPath);
const skipReason = !isRoot
  ? 'not running as root (needed to create users and switch to them)'
  : missing
    ? missing
    : homeNode
      ? `node (${process.execPath}) is under /home, /root or /run/user, which the service users cannot reach: install node system-wide`
      : undefined;
if (skipReason) console.warn(`deploy-separate-users: SKIPPED: ${skipReason}`);

/** setpriv arguments that run argv as `user` with its primary and supplementary groups,
 * as systemd's User= does. */
function asUser(user: string, argv: string[]): string[] {
  const group = spawnSync('id', ['-gn', user], { encoding: 'utf8' }).stdout.trim();
  return [`--reuid=${user}`, `--regid=${group}`, '--init-groups', '--', ...argv];
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = { PATH: BASE_PATH }) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A tool by the absolute path where it was found (the skip above names where it looked). */
const tool = (name: string): string => findSystemTool(name) ?? name;

/** The users and groups this file may create: the operator (made here) and the service
 * users and groups that install.sh creates. Those that did not exist before the file ran
 * are deleted after it, so a run leaves no account behind. */
const ACCOUNTS = { users: [OPERATOR, 'tmcp-gateway', 'tmcp-observer', 'tmcp-web', 'tmcp-notifier'], groups: [OPERATOR, 'tmcp-gateway', 'tmcp-observer', 'tmcp-web', 'tmcp-notifier', 'tmcp-clients'] };
const exists = (db: 'passwd' | 'group', name: string) => run(tool('getent'), [db, name]).status === 0;

function existingAccounts(): { users: string[]; groups: string[] } {
  return { users: ACCOUNTS.users.filter((u) => exists('passwd', u)), groups: ACCOUNTS.groups.filter((g) => exists('group', g)) };
}

/** Deletes the accounts that were not there before; returns what it could not delete. */
function removeNewAccounts(before: { users: string[]; groups: string[] }): string[] {
  const failures: string[] = [];
  for (const user of ACCOUNTS.users.filter((u) => !before.users.includes(u) && exists('passwd', u))) {
    const r = run(tool('userdel'), [user]);
    if (r.status !== 0) failures.push(`userdel ${user}: ${r.stderr.trim()}`);
  }
  // userdel removes a user's own group only where USERGROUPS_ENAB says so.
  for (const group of ACCOUNTS.groups.filter((g) => !before.groups.includes(g) && exists('group', g))) {
    const r = run(tool('groupdel'), [group]);
    if (r.status !== 0) failures.push(`groupdel ${group}: ${r.stderr.trim()}`);
  }
  return failures;
}

/** The operator is a real person's account in production; here a system user made for the
 * test (idempotent: a previous run's user is reused; a concurrent creation is tolerated). */
function ensureOperatorUser(): void {
  if (exists('passwd', OPERATOR)) return;
  const useradd = tool('useradd');
  const r = run(useradd, ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', OPERATOR]);
  if (r.status !== 0 && !exists('passwd', OPERATOR)) throw new Error(`${useradd} ${OPERATOR} (exit status ${r.status}): ${r.stderr || r.stdout}`);
}

/** The readable copy of the built checkout that every user of this file runs (set in
 * beforeAll): the developer's checkout may be in a directory the service users cannot
 * enter (e.g. a clone inside a 0700 `mktemp -d`, or under /root). */
let checkoutRoot = '';
const checkoutPath = (...parts: string[]): string => join(checkoutRoot, ...parts);

function install(root: string, extra: string[] = []) {
  return run('bash', [checkoutPath('deploy/install.sh'), '--operator', OPERATOR, '--root', root, '--node', process.execPath, ...extra]);
}

/** Runs inside a client user's process: what it can connect to, open and list. */
const PROBE = `
import { createConnection } from 'node:net';
import { closeSync, openSync, readdirSync } from 'node:fs';
const { connect, open, list, own, clientModule } = JSON.parse(process.argv[1]);
const code = (err) => err?.code ?? err?.cause?.code ?? String(err);
const result = { connect: {}, open: {}, list: {}, health: null, ready: null, listed: null };
for (const path of connect) {
  result.connect[path] = await new Promise((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => { s.destroy(); resolve('ok'); });
    s.once('error', (err) => resolve(code(err)));
  });
}
for (const path of open) {
  try { closeSync(openSync(path, 'r')); result.open[path] = 'ok'; } catch (err) { result.open[path] = code(err); }
}
for (const path of list) {
  try { readdirSync(path); result.list[path] = 'ok'; } catch (err) { result.list[path] = code(err); }
}
if (own) {
  const { createBrokerClient } = await import(clientModule);
  const client = createBrokerClient({ role: own.role, socketPath: own.socket });
  // Each socket serves only what its client calls: the broker's pid on the gateway's (the
  // operator's lifecycle commands ask there), readiness on the MCP sockets, the session list on web's.
  if (own.role === 'gateway') try { result.health = await client.health.info.query(); } catch (err) { result.health = { error: code(err) }; }
  if (own.role === 'gateway' || own.role === 'observer') try { result.ready = await client.health.ready.query(); } catch (err) { result.ready = { error: code(err) }; }
  else if (own.role === 'web') try { result.listed = (await client.sessions.list.query({})).sessions.length; } catch (err) { result.listed = code(err); }
  // The notifier's socket serves the notice outbox only.
  else try { result.listed = (await client.notifier.claim.mutate({ max: 1, wait_ms: 0 })).deliveries.length; } catch (err) { result.listed = code(err); }
}
process.stdout.write(JSON.stringify(result));
process.exit(0);
`;

interface ProbeResult {
  connect: Record<string, string>;
  open: Record<string, string>;
  list: Record<string, string>;
  health: { pid?: number; version?: string; error?: string } | null;
  ready: { ready?: boolean; tmux?: { ok: boolean }; notifier?: { connected: boolean; waiting: number }; error?: string } | null;
  /** web: how many sessions sessions.list returned; notifier: how many deliveries it claimed (or the error code). */
  listed: number | string | null;
}

interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function startAs(user: string, file: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn('setpriv', asUser(user, [process.execPath, file]), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    if (output.length < 256 * 1024) output += chunk.toString('utf8');
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<void> | undefined;
  return {
    child,
    output: () => output,
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }
      })()),
  };
}

async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Generous limits: real processes start under several users on a loaded machine; every
// wait inside is for a condition, not a duration.
const LIMIT_MS = 180_000;

describe.skipIf(skipReason !== undefined)(`separate Unix users per service${skipReason ? ` (skipped: ${skipReason})` : ''}`, { timeout: LIMIT_MS }, () => {
  let root: string;
  let stageDir: string | undefined;
  let stateDir: string;
  let socketDir: string;
  let tmuxName: string;
  let tmuxSocketPath: string;
  let broker: ServiceProcess | undefined;
  const services: ServiceProcess[] = [];
  const sockets = {} as Record<Role, string>;
  let firstInstall: ReturnType<typeof install>;
  let accountsBefore: ReturnType<typeof existingAccounts> | undefined;

  const tmuxAsOperator = (args: string[]) =>
    // SHELL: the operator's login shell here is nologin, which would end the session at once.
    run('setpriv', asUser(OPERATOR, ['tmux', '-L', tmuxName, '-f', '/dev/null', ...args]), { PATH: BASE_PATH, SHELL: '/bin/sh' });

  beforeAll(async () => {
    accountsBefore = existingAccounts();
    ensureOperatorUser();
    // The checkout the services run, readable by every user (removed with the file's other
    // temporary directories in afterAll).
    stageDir = mkdtempSync(SHARED_TMP_PREFIX);
    chmodSync(stageDir, 0o755);
    checkoutRoot = stageReadableCheckout(stageDir);
    // Short: socket paths must fit in ~107 bytes. 0755 so the service users can traverse.
    root = mkdtempSync(SHARED_TMP_PREFIX);
    chmodSync(root, 0o755);
    firstInstall = install(root);
    if (firstInstall.status !== 0) throw new Error(`install.sh failed:\n${firstInstall.stdout}\n${firstInstall.stderr}`);
    stateDir = join(root, 'var/lib/terminal-mcp');
    socketDir = join(root, 'run/terminal-mcp');
    for (const role of ROLES) sockets[role] = join(socketDir, `${role}.sock`);

    // The operator's own tmux server (tests never touch the host's default server).
    tmuxName = testSocketName('deploy');
    const started = tmuxAsOperator(['new-session', '-d', '-s', 'work', 'sleep 3600']);
    if (started.status !== 0) throw new Error(`tmux as ${OPERATOR}: ${started.stderr}`);
    tmuxSocketPath = tmuxAsOperator(['display-message', '-p', '#{socket_path}']).stdout.trim();
    if (!tmuxSocketPath.endsWith(`/${tmuxName}`)) throw new Error(`unexpected tmux socket path "${tmuxSocketPath}"`);

    // The broker as the operator, with the environment of the system unit.
    const brokerEnv = {
      PATH: BASE_PATH,
      HOME: '/nonexistent',
      TERMINAL_MCP_STATE_DIR: stateDir,
      TERMINAL_MCP_SOCKET_DIR: socketDir,
      TERMINAL_MCP_SOCKET_GROUPS: SOCKET_GROUPS,
      TERMINAL_MCP_TMUX_SOCKET: tmuxName,
    };
    broker = startAs(OPERATOR, checkoutPath('services/broker/dist/bin/main.js'), brokerEnv);
    // The unit's ExecStartPost: returns once every socket exists with its group.
    const waiter = spawn('setpriv', asUser(OPERATOR, ['timeout', '150', checkoutPath('deploy/wait-for-sockets.sh')]), { env: brokerEnv, stdio: 'ignore' });
    const waited = await new Promise<number | null>((resolve) => waiter.once('exit', (code) => resolve(code)));
    if (waited !== 0) throw new Error(`wait-for-sockets.sh exited ${waited}; broker output:\n${broker.output()}`);
    // The sockets listen before the broker has built the rest (it holds early callers):
    // the probes below need its stores and keys to exist, so wait for the files too.
    const built = ['audit-hmac.key', 'audit.db', 'grants.db', 'webauth.db', 'oauth.db', 'webauth-bootstrap.txt'];
    await waitFor('the broker to make its stores', () => built.every((f) => existsSync(join(stateDir, f))) || undefined, 120_000);
  }, LIMIT_MS);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
    if (tmuxName) tmuxAsOperator(['kill-server']);
    // tmux 3.3a leaves its socket file in the operator's /tmp/tmux-UID.
    if (tmuxSocketPath) rmSync(tmuxSocketPath, { force: true });
    if (root) rmSync(root, { recursive: true, force: true });
    if (stageDir) rmSync(stageDir, { recursive: true, force: true });
    const failures = accountsBefore ? removeNewAccounts(accountsBefore) : [];
    if (failures.length > 0) throw new Error(`could not delete the accounts this file created:\n  ${failures.join('\n  ')}`);
  }, LIMIT_MS);

  it('lays out the directories and sockets as documented', () => {
    const mode = (p: string) => statSync(p).mode & 0o7777;
    const group = (p: string) => run('stat', ['-c', '%G', p]).stdout.trim();
    expect(mode(stateDir)).toBe(0o700);
    expect(mode(socketDir)).toBe(0o710);
    expect(group(socketDir)).toBe('tmcp-clients');
    for (const role of ROLES) {
      expect(mode(sockets[role])).toBe(0o660);
      expect(group(sockets[role])).toBe(`tmcp-${role}`);
      expect(run('stat', ['-c', '%U', sockets[role]]).stdout.trim()).toBe(OPERATOR);
    }
  });

  function probe(user: string, own?: Role, ownSocket = own ? sockets[own] : undefined): ProbeResult {
    const stateFiles = readdirSync(stateDir).map((f) => join(stateDir, f));
    const input = {
      connect: [...ROLES.map((r) => sockets[r]), tmuxSocketPath],
      open: stateFiles,
      list: [stateDir, socketDir],
      own: own ? { role: own, socket: ownSocket } : undefined,
      clientModule: pathToFileURL(checkoutPath('shared/broker-client/dist/index.js')).href,
    };
    const r = run('setpriv', asUser(user, [process.execPath, '--input-type=module', '-e', PROBE, JSON.stringify(input)]), { PATH: BASE_PATH, HOME: '/nonexistent' });
    if (r.status !== 0) throw new Error(`probe as ${user} failed:\n${r.stderr}`);
    return JSON.parse(r.stdout) as ProbeResult;
  }

  it.each(ROLES)('tmcp-%s uses its own socket and gets EACCES on everything else of the broker', (role) => {
    const stateFiles = readdirSync(stateDir);
    // What must be refused really exists: every store, the audit key, the bootstrap password.
    expect(stateFiles).toEqual(expect.arrayContaining(['audit-hmac.key', 'audit.db', 'grants.db', 'webauth.db', 'oauth.db', 'webauth-bootstrap.txt']));
    const result = probe(`tmcp-${role}`, role);

    if (role === 'gateway') expect(result.health).toMatchObject({ pid: broker!.child.pid });
    if (role === 'web' || role === 'notifier') expect(typeof result.listed, String(result.listed)).toBe('number');
    else expect(result.ready).toMatchObject({ ready: true, tmux: { ok: true } });
    expect(result.connect[sockets[role]]).toBe('ok');
    for (const other of ROLES.filter((r) => r !== role)) expect(result.connect[sockets[other]], `${other}.sock`).toBe('EACCES');
    expect(result.connect[tmuxSocketPath], 'tmux socket').toBe('EACCES');
    for (const file of stateFiles) expect(result.open[join(stateDir, file)], file).toBe('EACCES');
    expect(result.list[stateDir]).toBe('EACCES');
    // Enter, not list: the socket names are not even discoverable.
    expect(result.list[socketDir]).toBe('EACCES');
  });

  it('any other local user reaches no socket at all', () => {
    const result = probe('nobody');
    for (const role of ROLES) expect(result.connect[sockets[role]], role).toBe('EACCES');
    expect(result.connect[tmuxSocketPath]).toBe('EACCES');
  });

  async function startService(user: string, role: Role): Promise<{ service: ServiceProcess; base: string }> {
    const files: Record<Role, string> = {
      gateway: 'services/gateway/dist/bin/http.js',
      observer: 'services/observer/dist/bin/observer.js',
      web: 'web/dist/server/main.js',
      notifier: 'services/notifier/dist/bin/notifier.js',
    };
    // The notifier listens on nothing: it has no port.
    const portVar: Record<Role, string> = { gateway: 'TERMINAL_MCP_GATEWAY_PORT', observer: 'TERMINAL_MCP_OBSERVER_PORT', web: 'TERMINAL_MCP_WEB_PORT', notifier: 'TERMINAL_MCP_NOTIFIER_UNUSED_PORT' };
    // The gateway never starts open (no token, no OAuth): it gets a token as install.sh's env file would give it.
    const token = role === 'gateway' ? { TERMINAL_MCP_GATEWAY_TOKEN: 'separate-users-test-token' } : {};
    const service = startAs(user, checkoutPath(files[role]), { PATH: BASE_PATH, HOME: '/nonexistent', TERMINAL_MCP_SOCKET_DIR: socketDir, [portVar[role]]: '0', ...token });
    services.push(service);
    const patterns: Record<Role, RegExp> = {
      gateway: /health (http:\/\/127\.0\.0\.1:\d+)\/health\/ready/,
      observer: /listening on 127\.0\.0\.1:(\d+)\)/,
      web: /dashboard (http:\/\/127\.0\.0\.1:\d+)\//,
      notifier: /"event":"notifier\.started"()/,
    };
    const base = await waitFor(`${role} to listen as ${user}`, () => {
      if (service.child.exitCode !== null) throw new Error(`${role} as ${user} exited ${service.child.exitCode}:\n${service.output()}`);
      const m = patterns[role].exec(service.output());
      if (!m) return undefined;
      return role === 'observer' ? `http://127.0.0.1:${m[1]}` : m[1]!;
    });
    return { service, base };
  }

  it('the real gateway and observer, each as its own user, are ready through their own socket', async () => {
    for (const role of ['gateway', 'observer'] as const) {
      const { base, service } = await startService(`tmcp-${role}`, role);
      const res = await fetch(`${base}/health/ready`);
      expect(res.status, service.output()).toBe(200);
      await service.stop();
    }
  });

  it('the real notifier runs as tmcp-notifier: the broker sees it connected through notifier.sock', async () => {
    const { service } = await startService('tmcp-notifier', 'notifier');
    const seen = await waitFor('the broker to see the notifier', () => {
      const ready = probe('tmcp-gateway', 'gateway').ready;
      return ready?.notifier?.connected === true ? ready.notifier : undefined;
    });
    expect(seen).toEqual({ connected: true, waiting: 0 });
    await service.stop();
    expect(service.child.exitCode, service.output()).toBe(0);
  });

  it('the real dashboard runs as tmcp-web (its build is readable, its socket usable)', async () => {
    const { base, service } = await startService('tmcp-web', 'web');
    const res = await fetch(`${base}/login`);
    expect(res.status, service.output()).toBe(200);
    await service.stop();
  });

  it('the gateway run as the wrong user cannot reach the broker: not ready', async () => {
    const { base, service } = await startService('tmcp-web', 'gateway');
    const res = await fetch(`${base}/health/ready`);
    expect(res.status).toBe(503);
    await service.stop();
  });

  it('the broker refuses to start when it may not hand a socket to its group', async () => {
    const dir = mkdtempSync(SHARED_TMP_PREFIX); // 0700 root: make it the operator's
    try {
      run('chown', [`${OPERATOR}:${OPERATOR}`, dir]);
      // The operator is not a member of tmcp-clients.
      const env = { PATH: BASE_PATH, HOME: '/nonexistent', TERMINAL_MCP_STATE_DIR: join(dir, 'state'), TERMINAL_MCP_SOCKET_DIR: join(dir, 'run'), TERMINAL_MCP_SOCKET_GROUPS: 'web=tmcp-clients', TERMINAL_MCP_TMUX_SOCKET: tmuxName };
      const failed = startAs(OPERATOR, checkoutPath('services/broker/dist/bin/main.js'), env);
      services.push(failed);
      const code = await waitFor('the broker to exit', () => (failed.child.exitCode ?? undefined), 120_000);
      expect(code).not.toBe(0);
      expect(failed.output()).toMatch(/must be a member of group tmcp-clients/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the broker works inside the unit\'s sandbox: everything read-only but its state and socket directories', async () => {
    // What ProtectSystem=strict + ProtectHome=read-only + PrivateTmp=no leave the broker
    // (StateDirectory= and RuntimeDirectory= are the writable exceptions), emulated with
    // a private mount namespace: can it still open its stores, listen, and reach the
    // operator's tmux server in the read-only /tmp?
    const root2 = mkdtempSync(SHARED_TMP_PREFIX);
    chmodSync(root2, 0o755);
    const hardened: ServiceProcess[] = [];
    try {
      const installed = install(root2);
      expect(installed.status, installed.stderr).toBe(0);
      const state2 = join(root2, 'var/lib/terminal-mcp');
      const run2 = join(root2, 'run/terminal-mcp');
      const sandbox = [
        'set -eu',
        'mount --make-rprivate /',
        'mount --bind "$STATE" "$STATE"',
        'mount --bind "$RUN" "$RUN"',
        // Every other mount read-only, as ProtectSystem=strict does.
        'findmnt -rn -o TARGET | while read -r m; do case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$STATE"|"$RUN") ;; *) mount -o remount,bind,ro "$m" 2>/dev/null || true ;; esac; done',
        // The emulation itself must hold, or this test proves nothing.
        'if touch /tmp/.tmcp-sandbox-check 2>/dev/null || touch "$CHECKOUT/.tmcp-sandbox-check" 2>/dev/null; then echo "sandbox emulation failed: still writable" >&2; exit 97; fi',
        'exec setpriv "$@"',
      ].join('\n');
      const env = {
        PATH: BASE_PATH,
        HOME: '/nonexistent',
        STATE: state2,
        RUN: run2,
        CHECKOUT: checkoutRoot,
        TERMINAL_MCP_STATE_DIR: state2,
        TERMINAL_MCP_SOCKET_DIR: run2,
        TERMINAL_MCP_SOCKET_GROUPS: SOCKET_GROUPS,
        TERMINAL_MCP_TMUX_SOCKET: tmuxName,
      };
      const child = spawn('unshare', ['--mount', 'sh', '-c', sandbox, 'sandbox', ...asUser(OPERATOR, [process.execPath, checkoutPath('services/broker/dist/bin/main.js')])], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      hardened.push({
        child,
        output: () => output,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            await exited;
          }
        },
      });
      const webSocket = join(run2, 'web.sock');
      await waitFor('the sandboxed broker to hand out its sockets', () => {
        if (child.exitCode !== null) throw new Error(`sandboxed broker exited ${child.exitCode}:\n${output}`);
        return run('stat', ['-c', '%G', webSocket]).stdout.trim() === 'tmcp-web' ? true : undefined;
      });
      const result = probe('tmcp-gateway', 'gateway', join(run2, 'gateway.sock'));
      expect(result.health, output).toMatchObject({ pid: child.pid });
      expect(result.ready, output).toMatchObject({ ready: true, tmux: { ok: true } });
    } finally {
      await Promise.all(hardened.map((h) => h.stop()));
      rmSync(root2, { recursive: true, force: true });
    }
  });

  it('install.sh is idempotent: a second run changes nothing, and a dry run after it has nothing to do', () => {
    expect(firstInstall.stdout).toMatch(/^(do|ok): .*terminal-mcp-broker\.service/m);
    const again = install(root);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/^do:/m);
    // Now the sockets exist too; the broker gave them the right groups and modes (this runs
    // last: install.sh would repair wrong ones and hide a broker that got them wrong).
    expect(again.stdout).toContain(`ok: ${sockets.web} belongs to group tmcp-web`);
    const dry = install(root, ['--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).not.toMatch(/^(do|would):/m);
  });
});
