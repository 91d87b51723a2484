/**
 * `terminal-mcp doctor`: one line per check, `ok`, `WARN` or `FAIL`, and for anything not
 * ok the fix. Exit 1 when a check fails. It only looks: it starts no server (not even
 * tmux), opens the stores read-only, and binds a port only to see whether it is free.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths } from '@terminal-mcp/contract';
import Database from 'better-sqlite3';
import { configSummaryDifferences, summarizeConfig } from '../../config/config-summary.js';
import { loadConfigFile } from '../config-file.js';
import { schemaVersion } from '../store/database.js';
import { STORE_DEFINITIONS } from '../store/store-set.js';
import { findBroker } from './broker-presence.js';
import { probeHttp } from './broker-probe.js';
import { checkoutRoot, declaredBins } from './checkout.js';
import { serviceEndpoints, type ServiceEndpoint } from './service-endpoints.js';
import { tmuxServerCheck, tmuxVersion } from './tmux-probe.js';

export type CheckLevel = 'ok' | 'WARN' | 'FAIL';
export interface Check {
  level: CheckLevel;
  name: string;
  detail: string;
  fix?: string;
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = (major === 20 && minor >= 19) || major >= 22;
  return ok
    ? { level: 'ok', name: 'node', detail: process.version }
    : { level: 'FAIL', name: 'node', detail: `${process.version} is not supported`, fix: 'install Node.js 20.19+ (20.x) or 22+' };
}

function tmuxChecks(socketName: string | undefined): Check[] {
  const version = tmuxVersion();
  if (!version) return [{ level: 'FAIL', name: 'tmux', detail: 'tmux is not installed', fix: 'install tmux 3.3 or newer (apt-get install tmux)' }];
  const [major = 0, minor = 0] = version.split('.').map((p) => Number.parseInt(p, 10));
  const versionCheck: Check =
    major > 3 || (major === 3 && minor >= 2)
      ? { level: 'ok', name: 'tmux', detail: `tmux ${version}` }
      : { level: 'WARN', name: 'tmux', detail: `tmux ${version} is older than tested (3.3a)`, fix: 'upgrade tmux to 3.3 or newer' };
  const server = tmuxServerCheck(socketName);
  const where = socketName ? `tmux -L ${socketName}` : 'the default tmux server';
  const serverCheck: Check = server.running
    ? { level: 'ok', name: 'tmux server', detail: `${where}: ${server.sessions} session(s)` }
    : { level: 'WARN', name: 'tmux server', detail: `${where} is not running (${server.detail})`, fix: `start one yourself (${socketName ? `tmux -L ${socketName} ` : 'tmux '}new -s work): terminal-mcp never starts a tmux server` };
  return [versionCheck, serverCheck];
}

function binsCheck(): Check {
  const bad: string[] = [];
  for (const bin of declaredBins()) {
    const link = join(checkoutRoot(), 'node_modules/.bin', bin.name);
    try {
      if (realpathSync(link) !== realpathSync(bin.target)) bad.push(`${bin.name} (points elsewhere)`);
      else accessSync(bin.target, constants.X_OK);
    } catch {
      bad.push(bin.name);
    }
  }
  return bad.length === 0
    ? { level: 'ok', name: 'bins', detail: `${declaredBins().length} linked in node_modules/.bin` }
    : { level: 'WARN', name: 'bins', detail: `not linked or not executable: ${bad.join(', ')}`, fix: 'npm run build (links them), or npm rebuild --ignore-scripts after a build; configure clients with absolute paths (terminal-mcp client-config)' };
}

function privateDirCheck(name: string, dir: string): Check {
  if (!existsSync(dir)) return { level: 'ok', name, detail: `${dir} (not created yet; the broker creates it 0700)` };
  const st = statSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory()) return { level: 'FAIL', name, detail: `${dir} is not a directory`, fix: `move it away; the broker creates the directory` };
  if (uid !== undefined && st.uid !== uid) return { level: 'FAIL', name, detail: `${dir} belongs to uid ${st.uid}, not you (${uid})`, fix: `run as its owner, or set ${name === 'state dir' ? 'TERMINAL_MCP_STATE_DIR' : 'TERMINAL_MCP_SOCKET_DIR'} to a directory of yours` };
  const mode = st.mode & 0o777;
  // The socket dir may be group-accessible in the separate-users deployment (deploy/).
  const allowed = name === 'socket dir' ? (mode & 0o007) === 0 : (mode & 0o077) === 0;
  return allowed
    ? { level: 'ok', name, detail: `${dir} (mode ${mode.toString(8)})` }
    : { level: 'FAIL', name, detail: `${dir} has mode ${mode.toString(8)}`, fix: `chmod ${name === 'socket dir' ? '750' : '700'} ${dir}` };
}

function storesCheck(stateDir: string): Check {
  const problems: string[] = [];
  let present = 0;
  for (const def of STORE_DEFINITIONS) {
    const file = join(stateDir, `${def.name}.db`);
    if (!existsSync(file)) continue;
    present++;
    try {
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        db.pragma('busy_timeout = 3000');
        const version = schemaVersion(db);
        if (version > def.migrations.length) problems.push(`${def.name}.db has schema ${version}, newer than this version knows (${def.migrations.length})`);
        const check = db.pragma('quick_check', { simple: true });
        if (check !== 'ok') problems.push(`${def.name}.db: ${String(check)}`);
      } finally {
        db.close();
      }
    } catch (err) {
      problems.push(`${def.name}.db: ${(err as Error).message.slice(0, 120)}`);
    }
  }
  if (problems.length > 0) return { level: 'FAIL', name: 'stores', detail: problems.join('; '), fix: 'restore the store from a backup (terminal-mcp restore DIR), or upgrade terminal-mcp if a store is newer' };
  return { level: 'ok', name: 'stores', detail: present === 0 ? 'none yet (created on first start)' : `${present} of ${STORE_DEFINITIONS.length} open cleanly` };
}

function portFree(e: ServiceEndpoint): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(e.port, e.host, () => server.close(() => resolve(true)));
  });
}

async function portCheck(e: ServiceEndpoint): Promise<Check> {
  const name = `port ${e.service}`;
  if (await portFree(e)) return { level: 'ok', name, detail: `${e.host}:${e.port} is free` };
  const status = await probeHttp(e.liveUrl);
  if (status !== undefined && status < 500) return { level: 'ok', name, detail: `${e.host}:${e.port} is ours (${e.service} answers ${e.liveUrl})` };
  const env = `TERMINAL_MCP_${e.service.toUpperCase()}_PORT`;
  return { level: 'FAIL', name, detail: `${e.host}:${e.port} is taken by another program`, fix: `stop that program, or set ${env} to a free port` };
}

function configCheck(configPath: string | undefined): Check {
  try {
    loadConfigFile(configPath);
    return { level: 'ok', name: 'config', detail: configPath ? `${configPath} is valid` : 'no TERMINAL_MCP_CONFIG: safe defaults (read on, input off)' };
  } catch (err) {
    return { level: 'FAIL', name: 'config', detail: (err as Error).message.replace(/\n\s*/g, ' '), fix: 'fix the named key in the file (docs/configuration.md)' };
  }
}

async function brokerCheck(socketDir: string, configPath: string | undefined): Promise<Check> {
  const broker = await findBroker(socketDir);
  if (!broker.info) {
    return broker.lockHolder
      ? { level: 'WARN', name: 'broker', detail: `pid ${broker.lockHolder} holds the lock but does not answer`, fix: 'wait for it to start, or terminal-mcp stop' }
      : { level: 'ok', name: 'broker', detail: 'not running' };
  }
  if (!broker.state) return { level: 'ok', name: 'broker', detail: `running, pid ${broker.info.pid}` };
  let requested;
  try {
    requested = summarizeConfig(loadConfigFile(configPath));
  } catch {
    return { level: 'ok', name: 'broker', detail: `running, pid ${broker.info.pid}` };
  }
  const diff = configSummaryDifferences(broker.state.config, requested);
  const samePath = (broker.state.config_path ?? undefined) === configPath;
  if (diff.length === 0 && samePath) return { level: 'ok', name: 'broker', detail: `running, pid ${broker.info.pid}, with the config on disk` };
  return {
    level: 'WARN',
    name: 'broker',
    detail: `running, pid ${broker.info.pid}, with a config that differs from ${configPath ?? 'the defaults'} (${samePath ? diff.join(', ') : `it uses ${broker.state.config_path ?? 'the defaults'}`})`,
    fix: 'terminal-mcp stop, then start it again to apply the config',
  };
}

export async function runDoctor(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const paths = resolvePaths(env, homedir());
  return [
    nodeCheck(),
    ...tmuxChecks(paths.tmuxSocket),
    binsCheck(),
    privateDirCheck('state dir', paths.stateDir),
    privateDirCheck('socket dir', paths.socketDir),
    storesCheck(paths.stateDir),
    ...(await Promise.all(serviceEndpoints(env).map(portCheck))),
    configCheck(paths.configPath),
    await brokerCheck(paths.socketDir, paths.configPath),
  ];
}

export async function doctorCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const checks = await runDoctor(env);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  else for (const c of checks) process.stdout.write(`${c.level.padEnd(4)}  ${c.name.padEnd(13)} ${c.detail}${c.fix ? ` -- fix: ${c.fix}` : ''}\n`);
  return checks.some((c) => c.level === 'FAIL') ? 1 : 0;
}
