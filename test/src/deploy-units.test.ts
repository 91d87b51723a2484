// The systemd units as installed: deploy/install.sh renders every template with this
// checkout and this node, and `systemd-analyze verify` must accept each one without a
// single warning (unknown keys, missing executables, bad values are all warnings there).
// Also: the hardening the units promise is really in them, and --dry-run changes nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_NODE_FLAGS } from '@terminal-mcp/broker/node-flags';
import { afterAll, describe, expect, it } from 'vitest';
import { stageReadableCheckout } from './helpers/readable-checkout.js';
import { repoPath } from './helpers/repo.js';

const ROLES = ['gateway', 'observer', 'web', 'notifier'] as const;
const UNITS = ['broker', ...ROLES].map((s) => `terminal-mcp-${s}.service`);
const hasAnalyze = spawnSync('sh', ['-c', 'command -v systemd-analyze']).status === 0;
if (!hasAnalyze) console.warn('deploy-units: systemd-analyze verify SKIPPED: systemd-analyze is not installed (.ci/run installs the systemd package)');

// An existing user that is not root and not `nobody` (which verify warns about).
const operator = process.getuid?.() === 0 ? 'daemon' : (process.env.USER ?? 'daemon');

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function install(args: string[]) {
  const r = spawnSync('bash', [repoPath('deploy/install.sh'), '--node', process.execPath, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function render(kind: 'system' | 'user', extra: string[] = []): string {
  const root = temp('tmcp-units-');
  const r = install([...(kind === 'system' ? ['--units-only', '--operator', operator, '--root', root] : ['--units-only', '--user-units', '--root', root]), ...extra]);
  if (r.status !== 0) throw new Error(`install.sh --units-only failed:\n${r.stdout}\n${r.stderr}`);
  return kind === 'system' ? join(root, 'etc/systemd/system') : join(root, '.config/systemd/user');
}

const systemDir = render('system');
const userDir = render('user');
const unit = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

describe('rendered units', () => {
  it('cover every template, with every placeholder filled in', () => {
    for (const [kind, dir] of [['system', systemDir], ['user', userDir]] as const) {
      expect(readdirSync(repoPath('deploy/systemd', kind)).filter((n) => n.endsWith('.service')).sort()).toEqual([...UNITS].sort());
      expect(readdirSync(dir).sort()).toEqual([...UNITS].sort());
      for (const name of UNITS) {
        const text = unit(dir, name);
        expect(text, name).not.toMatch(/@[A-Z]+@/);
        // The broker's node flags come between node and the script (checked below).
        const flags = name === 'terminal-mcp-broker.service' ? `${BROKER_NODE_FLAGS.join(' ')} ` : '';
        expect(text, name).toContain(`ExecStart=${process.execPath} ${flags}${repoPath()}/`);
      }
    }
  });

  it.skipIf(!hasAnalyze)('pass systemd-analyze verify (system units) without a warning', () => {
    // All four at once, so Requires=/After= between them resolve.
    const r = spawnSync('systemd-analyze', ['verify', ...UNITS.map((n) => join(systemDir, n))], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasAnalyze)('keep systemd-analyze security (offline) in its "OK" band', () => {
    // Measured with systemd 252: broker 2.9, clients 2.7 (0 = locked down, 10 = none).
    // Headroom for newer systemd versions scoring more settings; the settings themselves
    // are asserted one by one below.
    for (const name of UNITS) {
      const r = spawnSync('systemd-analyze', ['security', '--offline=yes', '--threshold=35', '--no-pager', join(systemDir, name)], { encoding: 'utf8' });
      expect(r.status, `${name}\n${r.stdout.split('\n').at(-2) ?? ''}`).toBe(0);
    }
  });

  it.skipIf(!hasAnalyze)('pass systemd-analyze --user verify (single-user units) without a warning', () => {
    const runtime = temp('tmcp-xdg-');
    const r = spawnSync('systemd-analyze', ['--user', 'verify', ...UNITS.map((n) => join(userDir, n))], {
      encoding: 'utf8',
      env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

const DROPIN = 'terminal-mcp-broker.service.d/nodes.conf';

describe('the drop-in for a broker with nodes (install.sh --nodes)', () => {
  const withNodes = { system: render('system', ['--nodes']), user: render('user', ['--nodes']) };

  it('is installed only when asked for, beside the broker unit', () => {
    expect(readdirSync(systemDir).some((n) => n.endsWith('.d'))).toBe(false);
    for (const kind of ['system', 'user'] as const) {
      expect(readFileSync(join(withNodes[kind], DROPIN), 'utf8')).toBe(readFileSync(repoPath('deploy/systemd', kind, DROPIN), 'utf8'));
    }
  });

  it('lets the broker (and its ssh) reach TCP and relaxes nothing else', () => {
    for (const kind of ['system', 'user'] as const) {
      const dropin = readFileSync(join(withNodes[kind], DROPIN), 'utf8');
      // systemd reads the unit, then the drop-in: the last value of a key wins.
      const effective = `${unit(withNodes[kind], 'terminal-mcp-broker.service')}\n${dropin}`;
      expect(setting(effective, 'RestrictAddressFamilies'), kind).toBe('AF_UNIX AF_INET AF_INET6');
      const keys = [...dropin.matchAll(/^([A-Za-z]+)=/gm)].map((m) => m[1]);
      expect(keys, kind).toEqual(kind === 'system' ? ['RestrictAddressFamilies', 'IPAddressDeny', 'LimitNOFILE'] : ['RestrictAddressFamilies', 'LimitNOFILE']);
    }
    expect(setting(readFileSync(join(withNodes.system, DROPIN), 'utf8'), 'IPAddressDeny')).toBe('');
  });

  it.skipIf(!hasAnalyze)('passes systemd-analyze verify with the drop-in read (system and single-user) without a warning', () => {
    const system = spawnSync('systemd-analyze', ['verify', ...UNITS.map((n) => join(withNodes.system, n))], { encoding: 'utf8' });
    expect(system.stderr).toBe('');
    expect(system.status).toBe(0);
    const user = spawnSync('systemd-analyze', ['--user', 'verify', ...UNITS.map((n) => join(withNodes.user, n))], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: temp('tmcp-xdg-') } });
    expect(user.stderr).toBe('');
    expect(user.status).toBe(0);
  });
});

/** The value of `Key=` in a unit (last one wins, as in systemd), or undefined. */
function setting(text: string, key: string): string | undefined {
  const values = [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!);
  return values.at(-1);
}

describe('hardening the units promise', () => {
  const broker = unit(systemDir, 'terminal-mcp-broker.service');

  it('the broker runs as the operator, sees the real /tmp (tmux) and the home read-only', () => {
    expect(setting(broker, 'User')).toBe(operator);
    expect(setting(broker, 'Group')).toBeUndefined();
    expect(setting(broker, 'PrivateTmp')).toBe('no');
    expect(setting(broker, 'ProtectHome')).toBe('read-only');
    expect(setting(broker, 'ProtectSystem')).toBe('strict');
    expect(setting(broker, 'NoNewPrivileges')).toBe('yes');
    expect(setting(broker, 'RestrictAddressFamilies')).toBe('AF_UNIX');
    expect(setting(broker, 'Restart')).toBe('on-failure');
    // Writable paths come from StateDirectory=/RuntimeDirectory= (systemd creates them),
    // never from a ReadWritePaths= that may not exist.
    expect(broker).not.toMatch(/^ReadWritePaths=/m);
    expect(setting(broker, 'StateDirectory')).toBe('terminal-mcp');
    expect(setting(broker, 'RuntimeDirectory')).toBe('terminal-mcp');
    // The groups install.sh creates, one per client role.
    expect(broker).toMatch(/^Environment=TERMINAL_MCP_SOCKET_GROUPS=gateway=tmcp-gateway,observer=tmcp-observer,web=tmcp-web,notifier=tmcp-notifier$/m);
    // No network at all: notices go out through the notifier (its own unit below).
    expect(setting(broker, 'IPAddressDeny')).toBe('any');
  });

  it('the notifier is the one unit that reaches the channels: any address, no listener, no port', () => {
    const text = unit(systemDir, 'terminal-mcp-notifier.service');
    expect(setting(text, 'IPAddressDeny')).toBeUndefined();
    expect(setting(text, 'RestrictAddressFamilies')).toBe('AF_UNIX AF_INET AF_INET6');
    expect(text).not.toMatch(/_PORT=/);
    expect(setting(text, 'ExecStart')).toMatch(/services\/notifier\/dist\/bin\/notifier\.js$/);
  });

  it('no system unit uses a specifier that means root\'s home in a system unit', () => {
    for (const name of UNITS) expect(unit(systemDir, name), name).not.toMatch(/%[hUuSt]/);
  });

  it.each(ROLES)('terminal-mcp-%s runs as its own user, bound to the broker, sandboxed', (role) => {
    const text = unit(systemDir, `terminal-mcp-${role}.service`);
    expect(setting(text, 'User')).toBe(`tmcp-${role}`);
    expect(setting(text, 'Group')).toBe(`tmcp-${role}`);
    expect(setting(text, 'SupplementaryGroups')).toBe('tmcp-clients');
    for (const dep of ['Requires', 'After', 'PartOf']) expect(setting(text, dep), dep).toBe('terminal-mcp-broker.service');
    expect(setting(text, 'ProtectSystem')).toBe('strict');
    expect(setting(text, 'ProtectHome')).toBe('yes');
    expect(setting(text, 'PrivateTmp')).toBe('yes');
    expect(setting(text, 'NoNewPrivileges')).toBe('yes');
    expect(setting(text, 'RestrictAddressFamilies')).toBe('AF_UNIX AF_INET AF_INET6');
    expect(setting(text, 'InaccessiblePaths')).toBe('-/var/lib/terminal-mcp');
    expect(setting(text, 'Restart')).toBe('on-failure');
    expect(text).not.toMatch(/^ReadWritePaths=/m);
  });

  it('both broker units start node with the flags every other launch of the broker uses', () => {
    for (const dir of [systemDir, userDir]) {
      const exec = setting(unit(dir, 'terminal-mcp-broker.service'), 'ExecStart') ?? '';
      const argv = exec.split(' ');
      // Exactly the flags: node, the flags, the script (a flag dropped from node-flags.ts
      // must not linger in a unit).
      expect(argv.slice(1, -1), exec).toEqual([...BROKER_NODE_FLAGS]);
      expect(argv.at(-1)).toMatch(/services\/broker\/dist\/bin\/main\.js$/);
    }
  });

  it('single-user units are bound to the user broker the same way', () => {
    for (const role of ROLES) {
      const text = unit(userDir, `terminal-mcp-${role}.service`);
      for (const dep of ['Requires', 'After', 'PartOf']) expect(setting(text, dep), `${role} ${dep}`).toBe('terminal-mcp-broker.service');
      expect(text).not.toMatch(/^User=/m);
    }
  });
});

describe('install.sh --dry-run', () => {
  it('prints every step it would take and changes nothing', () => {
    const root = temp('tmcp-dry-');
    // System units refuse a checkout under /home, /root or /run/user (their ProtectHome):
    // the dry run is given a readable copy outside them, wherever this checkout lives.
    const checkout = stageReadableCheckout(temp('tmcp-dry-checkout-'));
    const r = install(['--dry-run', '--operator', operator, '--root', root, '--checkout', checkout]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/^do:/m);
    for (const name of UNITS) expect(r.stdout).toContain(`would: write ${root}/etc/systemd/system/${name}`);
    for (const env of ['broker', ...ROLES]) expect(r.stdout).toContain(`would: write ${root}/etc/terminal-mcp/${env}.env`);
    expect(r.stdout).toMatch(new RegExp(`^would: create ${root}/run/terminal-mcp \\(mode 0710, ${operator}:tmcp-clients\\)$`, 'm'));
    expect(readdirSync(root)).toEqual([]);
  });

  it('--user-units installs into the home, needs no root, and is idempotent', () => {
    const root = temp('tmcp-home-');
    const first = install(['--user-units', '--root', root]);
    expect(first.status, first.stderr).toBe(0);
    for (const name of UNITS) expect(first.stdout).toContain(`do: write ${root}/.config/systemd/user/${name}`);
    expect(first.stdout).toContain(`do: write ${root}/.config/terminal-mcp/gateway.env (mode 0600)`);
    expect(first.stdout).not.toMatch(/create (system user|group)/);
    const again = install(['--user-units', '--root', root]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/^(do|would):/m);
  });

  it('refuses root as the operator and unknown users, before doing anything', () => {
    const root = temp('tmcp-dry-');
    expect(install(['--dry-run', '--operator', 'root', '--root', root]).stderr).toMatch(/must not be root/);
    expect(install(['--dry-run', '--operator', 'tmcp-no-such-person', '--root', root]).stderr).toMatch(/no user tmcp-no-such-person/);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('tunnel templates', () => {
  const port = (role: string) => setting(unit(systemDir, `terminal-mcp-${role}.service`), 'Environment');

  it('cloudflared routes the observer and the gateway to their loopback ports, health stays local, the rest is 404', () => {
    const config = readFileSync(repoPath('deploy/tunnels/cloudflared/config.yml'), 'utf8');
    expect(port('observer')).toBe('TERMINAL_MCP_OBSERVER_PORT=8767');
    expect(port('gateway')).toBe('TERMINAL_MCP_GATEWAY_PORT=8766');
    expect(config).toMatch(/^ {4}service: http:\/\/127\.0\.0\.1:8767$/m);
    expect(config).toMatch(/^ {4}service: http:\/\/127\.0\.0\.1:8766$/m);
    expect(config.match(/^ {4}path: \^\/health\/$/gm)).toHaveLength(2);
    expect(config.trimEnd()).toMatch(/- service: http_status:404$/);
    expect(config).toContain('TERMINAL_MCP_OBSERVER_PUBLIC_URL=');
    expect(config).toContain('TERMINAL_MCP_PUBLIC_HOSTS=');
  });

  it('the Secure MCP Tunnel forwards to the gateway with its bearer token', () => {
    const config = readFileSync(repoPath('deploy/tunnels/openai-secure-mcp-tunnel/tunnel-client.yaml'), 'utf8');
    expect(config).toMatch(/^ {6}url: http:\/\/127\.0\.0\.1:8766\/mcp$/m);
    expect(config).toMatch(/^ {4}Authorization: env:TERMINAL_MCP_GATEWAY_AUTHORIZATION$/m);
  });

  it.skipIf(!hasAnalyze)('the tunnel-client unit passes systemd-analyze verify next to the gateway unit', () => {
    // Its binary is downloaded by the operator; verify the unit against an executable that exists.
    const dir = temp('tmcp-tunnel-');
    const text = readFileSync(repoPath('deploy/tunnels/openai-secure-mcp-tunnel/terminal-mcp-tunnel-client.service'), 'utf8');
    expect(text).toContain('ExecStart=/opt/tunnel-client/tunnel-client run ');
    writeFileSync(join(dir, 'terminal-mcp-tunnel-client.service'), text.replaceAll('/opt/tunnel-client/tunnel-client', process.execPath));
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'terminal-mcp-tunnel-client.service'), ...UNITS.map((n) => join(systemDir, n))], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
