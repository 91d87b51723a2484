/** A broker's procedures over a private tmux server with live output watchers: the set-up
 * the live, wait and read-drift tests share. The caller owns the state directory (this
 * module touches no files). */
import { expect } from 'vitest';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import type { BrokerConfig } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import { createPaneWatcher, type PaneWatcher } from '../effects/tmux/pane-watch.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps } from './deps.testkit.js';

export interface LiveTestBroker {
  server: TmuxTestServer;
  adapter: ControlModeTmuxAdapter;
  paneWatch: PaneWatcher;
  deps: BrokerDeps;
  close(): Promise<void>;
}

export async function startLiveTestBroker(opts: { config: BrokerConfig; stateDir: string; graceMs: number }): Promise<LiveTestBroker> {
  const server = await startTmuxServer();
  const adapter = createTmuxAdapter({ socketName: server.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  const paneWatch = createPaneWatcher({ socketName: server.socketName, graceMs: opts.graceMs });
  const deps = testDeps({
    config: opts.config,
    tmux: adapter,
    stateDir: opts.stateDir,
    info: { version: 'test', startedAt: new Date(), tmuxSocket: server.socketName },
    paneWatch,
  });
  return {
    server,
    adapter,
    paneWatch,
    deps,
    async close() {
      await deps.transcripts.close();
      await paneWatch.close();
      await adapter.close();
      deps.input.reads.flush();
      deps.stores.close();
      await server.kill();
    },
  };
}
