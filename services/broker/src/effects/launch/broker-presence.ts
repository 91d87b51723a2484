/** Is a broker running for this socket directory, and which one: the pid it reports over
 * its socket, cross-checked with the record it wrote (broker.json) and the lock file. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrokerInfo } from '@terminal-mcp/contract';
import { pidAlive } from '../pid-alive.js';
import { readBrokerState, type BrokerState } from './broker-state-file.js';
import { probeBrokerInfo } from './broker-probe.js';

export interface BrokerPresence {
  /** What the broker answered on its socket; undefined when nothing answers. */
  info: BrokerInfo | undefined;
  /** Its broker.json, only when it belongs to the answering broker. */
  state: BrokerState | undefined;
  /** A live pid in broker.lock when the socket does not answer (starting, or hung). */
  lockHolder: number | undefined;
}

export function lockHolderPid(socketDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(socketDir, 'broker.lock'), 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export async function findBroker(socketDir: string): Promise<BrokerPresence> {
  const info = await probeBrokerInfo(socketDir);
  const state = readBrokerState(socketDir);
  return {
    info,
    state: info && state?.pid === info.pid ? state : undefined,
    lockHolder: info ? undefined : lockHolderPid(socketDir),
  };
}
