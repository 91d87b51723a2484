/**
 * Detectors for the effects an unauthorized call must not have, shared by the tests that
 * call every procedure and every MCP tool as a principal who may not cause them:
 * - a pane effect: the pane's program records every byte its terminal delivers (raw
 *   mode: no echo, no line discipline), so a single key shows;
 * - a store effect: SQLite's `data_version` of each store under the state directory
 *   (it changes when another connection commits), except audit.db, whose refusal and
 *   read records a refused call writes by design (its other tables are compared row by row);
 * - a process effect: marker files the operator's configured commands create.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const RECORDER = 'import os, sys, tty\ntty.setraw(0)\nout = open(sys.argv[1], "ab", buffering=0)\nwhile True:\n    b = os.read(0, 65536)\n    if not b:\n        break\n    out.write(b)\n';

/** A 1x1 PNG, for attachments. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The command of a pane that shows `prompt` and records every byte it receives in
 * `<dir>/<name>.bytes`. */
export function recordingPaneCommand(dir: string, name: string, prompt: string): string {
  const script = join(dir, 'record.py');
  if (!existsSync(script)) writeFileSync(script, RECORDER);
  return `bash --norc --noprofile -c 'printf "%s" "${prompt}"; exec python3 ${script} ${join(dir, `${name}.bytes`)}'`;
}

/** What each recording pane has received so far. */
export function paneBytes(dir: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, existsSync(join(dir, `${n}.bytes`)) ? readFileSync(join(dir, `${n}.bytes`), 'latin1') : '']));
}

/** Effect tables of audit.db (the rest are records). */
const AUDIT_EFFECT_TABLES = ['task_idempotency'];

export interface StoreWatch {
  /** One token per store; a store whose token changed was written. */
  versions(): Record<string, string>;
  close(): void;
}

/** `ignore`: stores the broker writes on its own schedule whatever anyone calls (a
 * running broker's session registry records tmux's sessions as they come and go). */
export function watchStores(stateDir: string, ignore: readonly string[] = []): StoreWatch {
  const open = new Map<string, Database.Database>();
  return {
    versions() {
      const out: Record<string, string> = {};
      for (const file of readdirSync(stateDir).filter((f) => f.endsWith('.db'))) {
        const name = file.replace(/\.db$/, '');
        if (ignore.includes(name)) continue;
        let db = open.get(name);
        if (db === undefined) {
          db = new Database(join(stateDir, file), { readonly: true, fileMustExist: true });
          open.set(name, db);
        }
        out[name] =
          name === 'audit' ? JSON.stringify(AUDIT_EFFECT_TABLES.map((t) => db!.prepare(`SELECT * FROM "${t}"`).raw().all())) : String(db.pragma('data_version', { simple: true }));
      }
      return out;
    },
    close() {
      for (const db of open.values()) db.close();
    },
  };
}

export interface EffectSnapshot {
  panes: Record<string, string>;
  stores: Record<string, string>;
  processes: Record<string, boolean>;
  sessions: string[];
}

/** Which recording panes, stores and process markers changed between two snapshots. */
export function effectsBetween(before: EffectSnapshot, after: EffectSnapshot): { panes: string[]; stores: string[]; processes: string[] } {
  return {
    panes: [...Object.keys(after.panes).filter((k) => after.panes[k] !== before.panes[k]), ...(after.sessions.join() !== before.sessions.join() ? ['(session list)'] : [])],
    stores: [...new Set([...Object.keys(before.stores), ...Object.keys(after.stores)])].filter((k) => before.stores[k] !== after.stores[k]),
    processes: Object.keys(after.processes).filter((k) => after.processes[k] !== before.processes[k]),
  };
}

/** Whether each marker file exists. */
export function markersExist(markers: Record<string, string>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(markers).map(([k, p]) => [k, existsSync(p)]));
}
