/** `terminal-mcp backup DIR` (works while the broker runs) and `terminal-mcp restore DIR`
 * (refuses while a broker runs). See effects/store/backup.ts for what is copied and how. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { resolvePaths, socketPathFor } from '@terminal-mcp/contract';
import { BROKER_VERSION } from '../package-info.js';
import { acquireInstanceLock, BrokerAlreadyRunningError, ensureSocketDir, socketAnswers } from '../socket-files.js';
import { BackupError, backupStateDir, restoreStateDir } from '../store/backup.js';
import { findBroker, lockHolderPid } from './broker-presence.js';

/** What to back up: the state directory and config file named in this shell, or else the
 * ones the running broker reports (its broker.json, checked against the pid its socket
 * answers with). A shell without TERMINAL_MCP_CONFIG would otherwise silently leave out
 * the config the broker was started with. `notes`: what the operator should know. */
async function backupSources(env: NodeJS.ProcessEnv): Promise<{ stateDir: string; configPath: string | undefined; notes: string[] }> {
  const paths = resolvePaths(env, homedir());
  const running = (await findBroker(paths.socketDir)).state;
  const notes: string[] = [];
  let stateDir = paths.stateDir;
  if (!env.TERMINAL_MCP_STATE_DIR && running && running.state_dir !== stateDir) {
    stateDir = running.state_dir;
    notes.push(`backing up the state directory of the running broker (pid ${running.pid}): ${stateDir}`);
  }
  let configPath = paths.configPath;
  const brokerConfig = running?.config_path ?? undefined;
  if (configPath === undefined && brokerConfig !== undefined && isAbsolute(brokerConfig)) {
    if (existsSync(brokerConfig)) {
      configPath = brokerConfig;
      notes.push(`backing up the config of the running broker (pid ${running!.pid}): ${brokerConfig}`);
    } else notes.push(`the running broker's config ${brokerConfig} no longer exists; not backed up`);
  } else if (configPath !== undefined && brokerConfig !== undefined && resolve(configPath) !== resolve(brokerConfig)) {
    notes.push(`backing up the config TERMINAL_MCP_CONFIG names (${configPath}), although the running broker (pid ${running!.pid}) was started with ${brokerConfig}`);
  }
  return { stateDir, configPath, notes };
}

export async function backupCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.length !== 1) {
    process.stderr.write('usage: terminal-mcp backup DIR   (DIR must be new or empty)\n');
    return 2;
  }
  const dest = resolve(args[0]!);
  try {
    const sources = await backupSources(env);
    const manifest = await backupStateDir({ stateDir: sources.stateDir, configPath: sources.configPath, dest, brokerVersion: BROKER_VERSION });
    for (const note of sources.notes) process.stdout.write(`${note}\n`);
    process.stdout.write(`backed up ${manifest.stores.length} store(s)${manifest.audit_key ? ', the audit key' : ''}${manifest.config ? ' and the config' : ''} to ${dest}\n`);
    for (const s of manifest.stores) process.stdout.write(`  ${s.file.padEnd(14)} schema ${s.schema_version}  ${s.bytes} bytes  sha256 ${s.sha256.slice(0, 16)}...\n`);
    if (manifest.absent_stores.length > 0) process.stdout.write(`  not present (never created): ${manifest.absent_stores.join(', ')}\n`);
    process.stdout.write(`the backup holds the audit key and account hashes: keep ${dest} private (it is 0700)\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`terminal-mcp backup: ${(err as Error).message}\n`);
    return err instanceof BackupError ? 2 : 1;
  }
}

export async function restoreCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.length !== 1) {
    process.stderr.write('usage: terminal-mcp restore DIR   (stop the broker first: terminal-mcp stop)\n');
    return 2;
  }
  const paths = resolvePaths(env, homedir());
  const refuse = (pid: number | undefined) => {
    process.stderr.write(`terminal-mcp restore: a broker is running${pid ? ` (pid ${pid})` : ''} on ${paths.socketDir}; stop it first (terminal-mcp stop), then restore\n`);
    return 2;
  };
  if (await socketAnswers(socketPathFor(paths.socketDir, 'gateway'))) return refuse(lockHolderPid(paths.socketDir));
  // Holding the broker's own instance lock while restoring: a broker starting meanwhile
  // refuses to start instead of opening half-restored stores.
  let lock;
  try {
    ensureSocketDir(paths.socketDir);
    lock = acquireInstanceLock(paths.socketDir);
  } catch (err) {
    if (err instanceof BrokerAlreadyRunningError) return refuse(err.pid);
    throw err;
  }
  const dir = resolve(args[0]!);
  try {
    const result = restoreStateDir(dir, paths.stateDir);
    process.stdout.write(`restored ${result.restored.join(', ')} into ${paths.stateDir} (backup of ${result.manifest.created_at}, broker ${result.manifest.broker_version})\n`);
    if (result.movedAside) process.stdout.write(`the files it replaced are kept in ${result.movedAside}\n`);
    if (result.manifest.config) {
      process.stdout.write(`the backed-up config is ${dir}/${result.manifest.config.file} (was ${result.manifest.config.original_path}); it was not copied over your current config: compare, then copy it if you want it\n`);
    }
    process.stderr.write(
      'WARNING: a restored grants.db or oauth.db is as of the backup: access revoked after the backup was taken ' +
        '(dashboard grants, OAuth clients and tokens, operator sessions) is valid again. After starting the broker, review ' +
        'grants in the dashboard and OAuth access with terminal-mcp-observer-admin status, and revoke what should be gone.\n',
    );
    return 0;
  } catch (err) {
    process.stderr.write(`terminal-mcp restore: ${(err as Error).message}\n`);
    return err instanceof BackupError ? 2 : 1;
  } finally {
    lock.release();
  }
}
