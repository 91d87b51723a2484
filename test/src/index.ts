/** Shared test helpers, also used by the bench. */
export { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from './helpers/tmux-server.js';
export { BROKER_NODE_FLAGS, startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
export { REPO_ROOT, repoPath } from './helpers/repo.js';
export { launchChromium, signInFirstTime, startWebStack, type WebStack } from './helpers/web-stack.js';
/** The broker clients the bench calls the broker's sockets with directly (per-hop figures). */
export { createBrokerClient, createBrokerLiveClient, type BrokerClient } from '@terminal-mcp/broker-client';
/** The session bursts that crashed tmux 3.3a while the broker recorded (bench/src/crash-bursts.ts). */
export { BURSTS, recordedCount, runBurst, type BurstName, type BurstOutcome } from './helpers/crash-bursts.js';
