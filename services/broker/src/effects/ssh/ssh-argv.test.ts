// Guards the ssh command line of a node: built from validated config only, host keys verified, `--` before the remote command, and no option injection through node names, destinations or paths.
import { describe, expect, it } from 'vitest';
import { nodesSchema, type NodeConfig } from '../../config/nodes-schema.js';
import { splitNodeName } from '../../nodes/node-names.js';
import { acceptHostKeyCommand, classifySshFailure, controlSocketName, sshCommandArgs, sshOptions } from './ssh-argv.js';

const node = (over: Partial<NodeConfig> = {}): NodeConfig => ({ name: 'gpu', ssh: 'dev@gpu.example:2222', ...over });
const parses = (n: Record<string, unknown>) => nodesSchema.safeParse([n]).success;

describe('node config refuses what could become an ssh option or token', () => {
  it.each([
    '-oProxyCommand=touch /tmp/pwn',
    '-gpu',
    'gpu box',
    'gpu%h',
    'gpu:1',
    'Gpu',
    'local',
    '',
    'g'.repeat(33),
    'gpu\n',
  ])('node name %j', (name) => {
    expect(parses({ name, ssh: 'host' })).toBe(false);
  });

  it.each([
    '-oProxyCommand=touch /tmp/pwn',
    '-p 22 host',
    'host -oProxyCommand=x',
    'user@host%h',
    'host%p',
    'us er@host',
    '-l root host',
    'host\n-oProxyCommand=x',
    'user@-host',
    'host:0',
    'host:70000',
    'host;id',
    '$(id)@host',
  ])('destination %j', (ssh) => {
    expect(parses({ name: 'gpu', ssh })).toBe(false);
  });

  it.each(['relative/known_hosts', '/tmp/a b', '/tmp/%d/kh', '~/.ssh/kh', "/tmp/it's", '/tmp/x\n'])('known_hosts / identity_file path %j', (path) => {
    expect(parses({ name: 'gpu', ssh: 'host', known_hosts: path })).toBe(false);
    expect(parses({ name: 'gpu', ssh: 'host', identity_file: path })).toBe(false);
  });

  it.each(['-x', 'a b', 'x;y'])('tmux_socket %j', (tmux_socket) => {
    expect(parses({ name: 'gpu', ssh: 'host', tmux_socket })).toBe(false);
  });

  it('accepts aliases, user@host:port and bracketed IPv6, and refuses duplicate names', () => {
    for (const ssh of ['gpubox', 'dev@gpu.example.com', 'gpu.example:2222', 'root@127.0.0.1:2022', '[::1]:22']) expect(parses({ name: 'gpu', ssh })).toBe(true);
    expect(nodesSchema.safeParse([{ name: 'a', ssh: 'h' }, { name: 'a', ssh: 'h2' }]).success).toBe(false);
  });
});

describe('the ssh argv', () => {
  const controlDir = '/var/lib/tmcp/state/ssh';

  it('verifies host keys, never prompts, forwards nothing, multiplexes under the state dir', () => {
    const args = sshOptions({ node: node({ known_hosts: '/etc/tmcp/known_hosts', identity_file: '/etc/tmcp/id' }), controlDir });
    const opts = args.filter((_, i) => args[i - 1] === '-o');
    for (const o of ['BatchMode=yes', 'StrictHostKeyChecking=yes', 'PasswordAuthentication=no', 'ForwardAgent=no', 'ClearAllForwardings=yes', 'PermitLocalCommand=no', 'ControlMaster=auto', 'UserKnownHostsFile=/etc/tmcp/known_hosts', 'IdentitiesOnly=yes']) {
      expect(opts).toContain(o);
    }
    expect(opts.find((o) => o.startsWith('ControlPath='))).toBe(`ControlPath=${controlDir}/${controlSocketName(node({ known_hosts: '/etc/tmcp/known_hosts', identity_file: '/etc/tmcp/id' }))}`);
    expect(opts.some((o) => o.startsWith('ControlPersist='))).toBe(true);
    expect(opts.some((o) => o.startsWith('ServerAliveInterval='))).toBe(true);
    expect(args).toContain('-T');
    expect(args.slice(args.indexOf('-p'), args.indexOf('-p') + 2)).toEqual(['-p', '2222']);
    expect(args.slice(args.indexOf('-l'), args.indexOf('-l') + 2)).toEqual(['-l', 'dev']);
  });

  it('puts `--` right after the destination and quotes every remote word for the remote shell', () => {
    const args = sshCommandArgs({ node: node(), controlDir }, ['tmux', '-L', 'x', 'display-message', '-p', "it's $(id); `id`"]);
    const dd = args.indexOf('--');
    expect(args[dd - 1]).toBe('gpu.example');
    expect(args.slice(dd + 1)).toEqual(["'tmux'", "'-L'", "'x'", "'display-message'", "'-p'", "'it'\\''s $(id); `id`'"]);
    // The destination is the only word between the options and `--` that is not an option's value.
    expect(args.filter((a) => a.includes('%'))).toEqual([]);
  });

  it('gives two nodes with one destination but different known_hosts different master connections', () => {
    expect(controlSocketName(node({ known_hosts: '/a/known_hosts' }))).not.toBe(controlSocketName(node({ known_hosts: '/b/known_hosts' })));
  });

  it('refuses a state dir ssh would expand or split', () => {
    expect(() => sshOptions({ node: node(), controlDir: '/tmp/%d/ssh' })).toThrow(expect.objectContaining({ code: 'NODE_UNAVAILABLE' }));
    expect(() => sshOptions({ node: node(), controlDir: '/tmp/a b' })).toThrow(expect.objectContaining({ code: 'NODE_UNAVAILABLE' }));
  });
});

describe('names a client sends', () => {
  it('reach only a configured node, never the ssh command line', () => {
    expect(splitNodeName('gpu:agent-1', ['gpu'])).toEqual({ node: 'gpu', session: 'agent-1' });
    expect(splitNodeName('local:agent-1', ['gpu'])).toEqual({ node: undefined, session: 'agent-1' });
    expect(splitNodeName('agent-1', ['gpu'])).toEqual({ node: undefined, session: 'agent-1' });
    for (const hostile of ['-oProxyCommand=touch /tmp/pwn:x', 'gpu.example:x', 'GPU:x', '%h:x', ' gpu:x', 'other:x']) {
      expect(() => splitNodeName(hostile, ['gpu'])).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND' }));
    }
  });
});

describe('failures', () => {
  it('are classified, and an unknown host key names the command that accepts it', () => {
    expect(classifySshFailure('No ED25519 host key is known for [127.0.0.1]:2022 and you have requested strict checking.\r\nHost key verification failed.')).toBe('host_key_unknown');
    expect(classifySshFailure('ssh: connect to host 127.0.0.1 port 2022: Connection refused')).toBe('connection_refused');
    expect(classifySshFailure('root@127.0.0.1: Permission denied (publickey).')).toBe('auth_refused');
    expect(classifySshFailure('no server running on /tmp/tmux-0/x')).toBe('remote_tmux_not_running');
    expect(acceptHostKeyCommand(node({ ssh: 'root@127.0.0.1:2022', known_hosts: '/k/known_hosts' }))).toBe('ssh-keyscan -p 2022 127.0.0.1 >> /k/known_hosts');
    expect(acceptHostKeyCommand(node({ ssh: 'gpubox' }))).toBe('ssh -o StrictHostKeyChecking=ask gpubox true');
  });
});
