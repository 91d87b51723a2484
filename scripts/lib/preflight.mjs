// What `npm start` checks before it installs or builds anything (issue 44: a missing config
// file was reported only after a 12-minute install and build). Node built-ins only: this runs
// on a fresh clone, before node_modules exists. Each problem is one line with its fix.
//  - TERMINAL_MCP_CONFIG names a file that does not exist or cannot be read: stop at once
//    (never start with defaults instead: the operator asked for a policy, and the defaults
//    are not that policy).
//  - The state directory (same rule as shared/contract resolvePaths) exists with group or
//    other access: made 0700 when this user owns it (it holds the audit log, password
//    hashes and tokens), said on stdout; owned by someone else or not a directory: stop.
import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The state directory `npm start` will use (mirrors shared/contract/src/paths.ts). */
export function stateDirOf(env, home = homedir()) {
  const stateHome = env.XDG_STATE_HOME || join(home, '.local/state');
  return env.TERMINAL_MCP_STATE_DIR || join(stateHome, 'terminal-mcp');
}

/** @returns {{ problems: string[], fixed: string[] }} */
export function preflight(env, uid = process.getuid?.()) {
  const problems = [];
  const fixed = [];
  const configPath = env.TERMINAL_MCP_CONFIG;
  if (configPath) {
    let st;
    try {
      st = statSync(configPath);
    } catch {
      problems.push(`TERMINAL_MCP_CONFIG names ${configPath}, which does not exist. Create it (docs/operations.md lists every key), fix the path, or unset TERMINAL_MCP_CONFIG to start with the safe defaults.`);
    }
    if (st && !st.isFile()) problems.push(`TERMINAL_MCP_CONFIG names ${configPath}, which is not a file. Point it at your config.yaml, or unset it to start with the safe defaults.`);
    else if (st) {
      try {
        accessSync(configPath, constants.R_OK);
      } catch {
        problems.push(`TERMINAL_MCP_CONFIG names ${configPath}, which this user cannot read. Fix its owner or mode (chmod 600 ${configPath}).`);
      }
    }
  }
  const stateDir = stateDirOf(env);
  let st;
  try {
    st = statSync(stateDir);
  } catch {
    st = undefined; // created 0700 by the broker on first start
  }
  if (st && !st.isDirectory()) problems.push(`the state directory ${stateDir} is not a directory. Move it away, or set TERMINAL_MCP_STATE_DIR to another path.`);
  else if (st && uid !== undefined && st.uid !== uid) problems.push(`the state directory ${stateDir} belongs to uid ${st.uid}, not to this user (uid ${uid}). Run npm start as its owner, or set TERMINAL_MCP_STATE_DIR to a directory of your own.`);
  else if (st && (st.mode & 0o077) !== 0) {
    try {
      chmodSync(stateDir, 0o700);
      fixed.push(`the state directory ${stateDir} had mode ${(st.mode & 0o777).toString(8)}; made it 700 (it holds the audit log, password hashes and tokens)`);
    } catch (err) {
      problems.push(`the state directory ${stateDir} has mode ${(st.mode & 0o777).toString(8)} and could not be made 700 (${err.message}). Run chmod 700 ${stateDir}.`);
    }
  }
  return { problems, fixed };
}
