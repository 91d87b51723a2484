export { createBroker, startBroker, type RunningBroker, type StartBrokerOptions } from './start-broker.js';
export { createContextInner, type BrokerContext } from './rpc/context.js';
export { ROLE_ROUTERS } from './rpc/roles/index.js';
export { createCallerFactory } from './rpc/trpc.js';
export { configSchema, DEFAULT_CONFIG, type BrokerConfig } from './config/schema.js';
export { parseConfigText, ConfigError } from './config/parse.js';
// What the state directory holds, for the tests that pin the docs to the code.
export { STORE_NAMES } from './effects/store/store-set.js';
export { ATTACHMENTS_DIR } from './effects/attachments/attachment-files.js';
export { TRANSCRIPTS_DIR } from './effects/transcripts/transcript-files.js';
