/** Types only: clients import these, never broker runtime code. */
export type { GatewayRouter } from './roles/gateway.js';
export type { ObserverRouter } from './roles/observer.js';
export type { WebRouter } from './roles/web.js';
export type { NotifierRouter } from './roles/notifier.js';
