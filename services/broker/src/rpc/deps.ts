/**
 * Everything a procedure may use. Built once, in order, by the composition root
 * (start-broker.ts `createBroker` and its `assembleDeps`; tests through
 * testing/deps.testkit.ts): a procedure finds what it needs here and creates nothing.
 */
import type { OAuthServer } from '@terminal-mcp/contract';
import type { Logger } from 'pino';
import type { AccessGate } from '../access/gate.js';
import type { AttentionCenter } from '../attention/center.js';
import type { NoticeOutbox } from '../attention/notice-outbox.js';
import type { BrokerConfig } from '../config/schema.js';
import type { StoreSet } from '../effects/store/store-set.js';
import type { TranscriptRecorder } from '../effects/transcripts/recorder.js';
import type { InputControl, TmuxAdapter } from '../effects/tmux/types.js';
import type { PaneLocks } from '../input/pane-lock.js';
import type { ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import type { NodeConfig } from '../config/nodes-schema.js';
import type { HostSet } from '../nodes/host-set.js';
import type { NodeInputEffects, NodeSet, NodeSetDeps } from '../nodes/node-set.js';
import type { InputServices } from '../input/services.js';
import type { LifecycleServices, NodeLifecycleEffects } from '../lifecycle/lifecycle-deps.js';
import type { LiveDeps } from '../live/live-deps.js';
import type { OAuthLoginEnv } from '../oauth/env.js';
import type { RunningWork } from '../projects/running-work.js';
import type { SessionReader } from '../reads/session-reader.js';
import type { SupervisorEngine } from '../supervisor/engine.js';
import type { TranscriptReads } from '../transcripts/transcript-reads.js';
import type { WebauthEnv } from '../webauth/env.js';

/** What the composition root builds first and hands in. */
export interface BrokerParts {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  stores: StoreSet;
  log: Logger;
  info: { version: string; startedAt: Date; tmuxSocket: string | null };
  /** Live pane output watchers and pending waits' resume tokens (live/live-deps.ts). A
   * watcher costs nothing until a session is watched. */
  live: LiveDeps;
  /** Session transcripts (effects/transcripts/recorder.ts), fed by the registry's passes;
   * with `transcripts.enabled: false` it records nothing and reads find no transcript. */
  transcripts: TranscriptRecorder;
  /** One sender per pane (input/pane-lock.ts): in memory, this broker's only. */
  paneLocks: PaneLocks;
  /** The control client's write path (effects/tmux/types.ts InputControl), handed only to
   * the input delivery; absent, the delivery spawns tmux for every line it types. */
  inputControl?: InputControl | undefined;
  /** Builds a node's tmux adapter over ssh (config `nodes:`); absent: no nodes (tests). */
  nodeAdapterFor?: ((node: NodeConfig) => ControlModeTmuxAdapter) | undefined;
  /** Builds a node's input effects (delivery, process tree) over ssh; absent: input to
   * nodes is refused. */
  nodeInputFor?: ((node: NodeConfig, tmux: ControlModeTmuxAdapter) => NodeInputEffects) | undefined;
  /** Builds a node's transcript recorder (polling, over the node's reader); absent: node
   * sessions are not recorded. */
  nodeRecorderFor?: NodeSetDeps['recorderFor'];
  /** Builds a node's session lifecycle effects (new-session, kill, directory reads) over
   * ssh; absent: launch profiles with a node answer NODE_UNAVAILABLE. */
  nodeLifecycleFor?: ((node: NodeConfig) => NodeLifecycleEffects) | undefined;
}

export interface BrokerDeps extends BrokerParts {
  input: InputServices;
  /** The one answer to "may this caller read, or type into, this session?". */
  access: AccessGate;
  /** The one reader of pane content, over `access`. */
  reader: SessionReader;
  /** The operator accounts, login sessions and bootstrap secret (webauth/env.ts). */
  webauth: WebauthEnv;
  /** Each authorization server's OAuth environment: its rules and scopes over the one
   * oauth.db, with the operator accounts for the consent page's login. */
  oauth: Readonly<Record<OAuthServer, OAuthLoginEnv>>;
  /** The supervisor (supervisor/engine.ts). createBroker starts it; a broker built by a
   * test leaves it passive (it evaluates only on request: run_once, watch). */
  supervisor: SupervisorEngine;
  /** Cursors, output since a cursor and DEAD sessions' transcripts, over `transcripts`
   * and `access` (transcripts/transcript-reads.ts). */
  transcriptReads: TranscriptReads;
  /** Searches and deploy previews running now, each bounded (projects/running-work.ts). */
  running: RunningWork;
  /** Launch profiles' sessions: tmux creation and kills, their registry records
   * (lifecycle/; recovery is started by createBroker). */
  lifecycle: LifecycleServices;
  /** Other hosts over ssh (nodes/node-set.ts); absent when none are configured. */
  nodes?: NodeSet | undefined;
  /** This machine and every node behind one interface (nodes/host-set.ts): a procedure
   * resolves its target's host here, once. */
  hosts: HostSet;
  /** Notices for a person (attention/center.ts): the dashboard's list, requests for a
   * human, and the notification channels that subscribe to it. */
  attention: AttentionCenter;
  /** Deliveries waiting for the notifier (attention/notice-outbox.ts, notifier.sock). */
  noticeOutbox: NoticeOutbox;
}
