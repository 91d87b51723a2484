/** The one way a broker test builds what procedures use: the production assembly
 * (start-broker.ts `assembleDeps`: input services, THE access gate, THE reader, the
 * webauth and OAuth environments, a passive supervisor) over the parts the test chose,
 * with a silent logger, test build info and a real pane watcher unless it says otherwise. */
import pino from 'pino';
import { createAccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import { openStoreSet, type StoreSet } from '../effects/store/store-set.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import type { PanePipes, TmuxAdapter } from '../effects/tmux/types.js';
import { createPaneLocks, type PaneLocks } from '../input/pane-lock.js';
import { createLiveDeps, type LiveDeps } from '../live/live-deps.js';
import { createTranscriptRecorder, type TranscriptRecorder } from '../effects/transcripts/recorder.js';
import { createCutMemo } from '../reads/cut-memo.js';
import { createSessionReader, type SessionReader } from '../reads/session-reader.js';
import type { BrokerDeps, BrokerParts } from '../rpc/deps.js';
import { assembleDeps } from '../start-broker.js';

/** A tmux socket no test server uses: a pane watcher built for a test that named no
 * socket must never reach the user's default tmux server. */
const NO_TEST_SOCKET = `tmcp-test-unset-${process.pid}`;

export interface TestParts {
  config: BrokerConfig;
  tmux: TmuxAdapter;
  /** The stores, or the state directory to open them in (the test closes `deps.stores`). */
  stores?: StoreSet;
  stateDir?: string;
  log?: BrokerParts['log'];
  info?: BrokerParts['info'];
  /** Live output: the given deps, or over the given watcher, or a fresh watcher on
   * `info.tmuxSocket` (it spawns nothing until a session is watched). */
  live?: LiveDeps;
  paneWatch?: PaneWatcher;
  /** Transcripts: the given recorder, or one over the adapter's pipe-pane (it records
   * only when the config enables transcripts, and only over an adapter that can pipe). */
  transcripts?: TranscriptRecorder;
  /** The per-pane input locks; a fresh set unless given. */
  paneLocks?: PaneLocks;
}

/** The adapter's pipes, or none for a fake adapter (recording then never starts). */
function panePipesOf(tmux: TmuxAdapter): PanePipes {
  if ('openPanePipe' in tmux) return tmux as TmuxAdapter & PanePipes;
  const none = () => Promise.reject(new Error('this test adapter cannot pipe panes'));
  return { listPanePipes: none, openPanePipe: none, closePanePipe: () => Promise.resolve(), whenIdle: () => Promise.resolve() };
}

export function testDeps(parts: TestParts): BrokerDeps {
  const { stores, stateDir, paneWatch, live, transcripts, paneLocks, ...rest } = parts;
  const info = parts.info ?? { version: 'test', startedAt: new Date(), tmuxSocket: null };
  if ((stores === undefined) === (stateDir === undefined)) throw new Error('testDeps: give exactly one of stores and stateDir');
  const log = parts.log ?? pino({ level: 'silent' });
  const opened = stores ?? openStoreSet(stateDir!);
  const liveDeps = live ?? createLiveDeps(paneWatch ?? createPaneWatcher({ socketName: info.tmuxSocket ?? NO_TEST_SOCKET }));
  return assembleDeps({
    ...rest,
    log,
    info,
    stores: opened,
    live: liveDeps,
    transcripts: transcripts ?? createTranscriptRecorder({ config: parts.config, tmux: panePipesOf(parts.tmux), stateDir: opened.stateDir, log }),
    paneLocks: paneLocks ?? createPaneLocks(),
  });
}

/** The same broker under another config (tests that change the config between calls):
 * the same stores, input services and live output; gate, reader, environments and
 * supervisor are built again over the new config. */
export function withConfig(deps: BrokerDeps, config: BrokerConfig): BrokerDeps {
  const { config: _config, tmux, stores, log, info, live, input, transcripts, paneLocks } = deps;
  return assembleDeps({ config, tmux, stores, log, info, live, transcripts, paneLocks }, input);
}

/** THE reader over a bare adapter: no grants (only the whitelist admits), no bindings,
 * continued reads recorded nowhere. */
export function whitelistReader(config: BrokerConfig, tmux: TmuxAdapter): SessionReader {
  const access = createAccessGate({ config, tmux, bindings: { get: () => undefined }, delivery: { readIdentity: () => Promise.resolve(null) } });
  return createSessionReader({ config, tmux, access, reads: { record: () => undefined }, identity: { readIdentity: () => Promise.resolve(null) }, cuts: createCutMemo() });
}
