/** Shared test helpers, also used by the bench. */
export { startTmuxServer, type TmuxTestServer, type TmuxTestSession } from './helpers/tmux-server.js';
export { BROKER_NODE_FLAGS, socketAnswers, startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
export { REPO_ROOT, repoPath } from './helpers/repo.js';
export { launchChromium, signInFirstTime, startWebStack, type WebStack } from './helpers/web-stack.js';
export { createOperatorAccount } from './helpers/operator-account.js';
/** A real sshd on loopback for the `nodes` section (many hosts over OpenSSH). */
export { sshdUnavailable, startSshd, type TestSshd } from './helpers/sshd.js';
/** The broker clients the bench calls the broker's sockets with directly (per-hop figures). */
export { createBrokerClient, createBrokerLiveClient, type BrokerClient } from '@terminal-mcp/broker-client';
export { catalogueOf, gatewayServerFor, measureToolsetCombinations, observerServer, OPTIONAL_TOOLSETS, type CombinationBytes } from './helpers/catalogue-bytes.js';
export { addVariedSessions, VARIED_SESSIONS_CONFIG, variedSessionName } from './helpers/varied-sessions.js';
export { answerBytes, LIST_CALLS, measureListAnswers, startListAnswersFixture, type AnswerBytes, type ListAnswerRow, type ListCall } from './helpers/list-answers.js';
export { expandRows, parseRows, type CompactRows } from '@terminal-mcp/gateway';
/** The session bursts that crashed tmux 3.3a while the broker recorded (bench/src/crash-bursts.ts). */
export { BURSTS, recordedCount, runBurst, type BurstName, type BurstOutcome } from './helpers/crash-bursts.js';
export { freePort } from './helpers/ports.js';
