/** Who the current MCP request acts for, carried through async calls so the broker
 * client can name them in the `x-terminal-mcp-actor` header (the broker records
 * `observer:<user>`). Set once per request from the verified access token, never from
 * anything the client claims. */
import { AsyncLocalStorage } from 'node:async_hooks';

export const actorStore = new AsyncLocalStorage<string>();

export function currentActor(): string | undefined {
  return actorStore.getStore();
}
