/** What the operator-login domain acts on: the webauth store, the bootstrap secret file,
 * a log and a clock. Built once by the broker's composition root (`deps.webauth`) and
 * once by the CLI; tests pass their own clock. */
import type { Logger } from 'pino';
import { bootstrapSecretFile, type BootstrapSecretFile } from '../effects/webauth-bootstrap-file.js';
import type { WebauthStore } from '../effects/store/webauth-store.js';
import { dummyPasswordHasher } from './passwords.js';

export interface WebauthEnv {
  store: WebauthStore;
  secretFile: BootstrapSecretFile;
  log: Logger;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** The hash an unknown user name is checked against (passwords.ts), made once. */
  dummyHash: () => Promise<string>;
}

export function webauthEnv(opts: { store: WebauthStore; stateDir: string; log: Logger; now?: () => number }): WebauthEnv {
  return { store: opts.store, secretFile: bootstrapSecretFile(opts.stateDir), log: opts.log, now: opts.now ?? Date.now, dummyHash: dummyPasswordHasher() };
}
