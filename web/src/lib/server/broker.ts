/**
 * The dashboard's one way to the broker: tRPC over web.sock (the socket IS the role; the
 * broker decides what the web role may do). Every call made while serving a signed-in
 * operator's request carries that operator's session token (from the login cookie): the
 * broker validates it and derives the acting user itself, so grants, input and revocations
 * are recorded under the real operator and refused without one. The user name also travels
 * as the actor header, which the broker records for reads and never trusts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createBrokerClient, type BrokerClient } from '@terminal-mcp/broker-client';

export interface OperatorScope {
  username: string;
  /** The operator's session token (the `tmcp_session` cookie's value). */
  token: string;
}

/** The operator on whose behalf the current request runs (set in hooks.server.ts). */
export const operatorStorage = new AsyncLocalStorage<OperatorScope>();

/** Runs `fn` with every broker call it makes carrying `operator`'s session. */
export function asOperator<T>(operator: OperatorScope, fn: () => T): T {
  return operatorStorage.run(operator, fn);
}

// eslint-disable-next-line terminal-mcp/no-module-state -- the dashboard server's one link to web.sock: SvelteKit server modules have no composition root, and the process serves one dashboard
let client: BrokerClient<'web'> | undefined;

export function broker(): BrokerClient<'web'> {
  client ??= createBrokerClient({
    role: 'web',
    actor: () => operatorStorage.getStore()?.username,
    operatorSession: () => operatorStorage.getStore()?.token,
  });
  return client;
}
