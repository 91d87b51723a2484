/**
 * The dashboard's one way to the broker: tRPC over web.sock (the socket IS the role; the
 * broker decides what the web role may do). The signed-in operator's name travels as the
 * actor header so the broker's audit names them; it is recorded, never trusted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';

/** The operator on whose behalf the current request runs (set in hooks.server.ts). */
export const actorStorage = new AsyncLocalStorage<string>();

let client: BrokerClient<'web'> | undefined;

export function broker(): BrokerClient<'web'> {
  client ??= createBrokerClient({ role: 'web', actor: () => actorStorage.getStore() });
  return client;
}
