/** Shared test helpers, also used by the bench. */
export { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from './helpers/tmux-server.js';
export { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
export { REPO_ROOT, repoPath } from './helpers/repo.js';
