import type { SocketRole } from '@terminal-mcp/contract';
import { gatewayRouter } from './gateway.js';
import { notifierRouter } from './notifier.js';
import { observerRouter } from './observer.js';
import { webRouter } from './web.js';

/** The socket a connection arrives on is its role; this is the whole dispatch table. */
export const ROLE_ROUTERS = {
  gateway: gatewayRouter,
  observer: observerRouter,
  web: webRouter,
  notifier: notifierRouter,
} as const satisfies Record<SocketRole, unknown>;
