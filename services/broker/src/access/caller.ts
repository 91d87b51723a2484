/** Who is asking, as the domain sees a request: the socket's role (the credential) and
 * the actor recorded in the audit log. The transport's context (rpc/context.ts) carries
 * more; use cases take only this, so nothing below rpc/ imports it. */
import type { SocketRole } from '@terminal-mcp/contract';

export interface Caller {
  role: SocketRole;
  actor: string;
}
