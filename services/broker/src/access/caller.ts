/** Who is asking, as the domain sees a request: the socket's role (the credential), the
 * actor recorded in the audit log and the principal behind both (policy/authority.ts:
 * identity and what its authentication allows). The transport's context (rpc/context.ts)
 * carries more; use cases take only this, so nothing below rpc/ imports it. */
import type { SocketRole } from '@terminal-mcp/contract';
import type { Principal } from '../policy/authority.js';

export interface Caller {
  role: SocketRole;
  actor: string;
  principal: Principal;
  /** The principal as the caller's credential verifies NOW (an OAuth token checked again:
   * a client revoked since is a principal that may do nothing); absent when the
   * credential cannot change (a socket, a static token). Used where an act outlives the
   * request that asked for it (an approved review, input/attempt.ts). */
  reverify?: (() => Principal) | undefined;
}
