/**
 * A small JSON record in the socket directory that a running process writes about itself
 * (`broker.json`, `supervisor.json`): written atomically (temporary file, then rename)
 * with mode 0600, read through its zod schema (anything else reads as absent), and
 * removed only by the process whose pid it names, never a newer one's.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';

export interface PidRecordFile<T extends { pid: number }> {
  path(socketDir: string): string;
  write(socketDir: string, record: T): void;
  /** The record, or undefined when there is none or it does not parse. */
  read(socketDir: string): T | undefined;
  /** Removes the record if it is `pid`'s. */
  remove(socketDir: string, pid?: number): void;
}

export function pidRecordFile<S extends z.ZodType<{ pid: number }>>(fileName: string, schema: S): PidRecordFile<z.infer<S>> {
  const path = (socketDir: string) => join(socketDir, fileName);
  const read = (socketDir: string): z.infer<S> | undefined => {
    try {
      const parsed = schema.safeParse(JSON.parse(readFileSync(path(socketDir), 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    path,
    read,
    write(socketDir, record) {
      const target = path(socketDir);
      const tmp = `${target}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, target);
    },
    remove(socketDir, pid = process.pid) {
      if (read(socketDir)?.pid !== pid) return;
      try {
        unlinkSync(path(socketDir));
      } catch {
        /* already gone */
      }
    },
  };
}
