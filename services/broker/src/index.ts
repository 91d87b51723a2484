export { createBroker, startBroker, type RunningBroker, type StartBrokerOptions } from './start-broker.js';
export { createContextInner, type BrokerContext } from './rpc/context.js';
export { ROLE_ROUTERS } from './rpc/roles/index.js';
export { createCallerFactory } from './rpc/trpc.js';
export { configSchema, DEFAULT_CONFIG, type BrokerConfig } from './config/schema.js';
export { parseConfigText, ConfigError } from './config/parse.js';
