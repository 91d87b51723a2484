/** What the input use cases (attempts, bindings, input context) use, and nothing else:
 * the broker's deps (rpc/deps.ts) are handed to them as this slice. */
import type { NoticeKind, NoticeLevel } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { Caller } from '../access/caller.js';
import type { AccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import type { LiveDeps } from '../live/live-deps.js';
import type { HostSet } from '../nodes/host-set.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { InputServices } from './services.js';

export interface InputDeps {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  log: Logger;
  input: InputServices;
  access: AccessGate;
  reader: SessionReader;
  /** This machine and every node (nodes/host-set.ts): input to `node:session` or to a
   * binding pinned on a node goes to that Host's gate, delivery and process reads
   * (input/node-route.ts). */
  hosts: HostSet;
  /** terminal_run's resume tokens. */
  live: Pick<LiveDeps, 'runTokens'>;
  /** Notices for a person (attention/center.ts): review mode raises `approval_needed`.
   * Absent in slices built without it. */
  attention?: { raise(notice: { kind: NoticeKind; level: NoticeLevel; session: string | null; message: string; from: string }): unknown };
}

export type InputCaller = Caller & { deps: InputDeps };
