/** The one way a broker test builds what procedures use: the production assembly
 * (deps.ts `assembleDeps`: input services, THE access gate, THE reader) over the parts
 * the test chose, with a silent logger and test build info unless it says otherwise. */
import pino from 'pino';
import { createAccessGate } from '../access/gate.js';
import type { BrokerConfig } from '../config/schema.js';
import { assembleDeps, type BrokerDeps, type BrokerParts } from '../rpc/deps.js';
import type { TmuxAdapter } from '../effects/tmux/types.js';
import { createSessionReader, type SessionReader } from '../reads/session-reader.js';

export function testDeps(parts: Omit<BrokerParts, 'log' | 'info'> & Partial<Pick<BrokerParts, 'log' | 'info'>>): BrokerDeps {
  return assembleDeps({
    log: pino({ level: 'silent' }),
    info: { version: 'test', startedAt: new Date(), tmuxSocket: null },
    ...parts,
  });
}

export { withConfig } from '../rpc/deps.js';

/** THE reader over a bare adapter: no grants (only the whitelist admits), no bindings. */
export function whitelistReader(config: BrokerConfig, tmux: TmuxAdapter): SessionReader {
  const access = createAccessGate({ config, tmux, bindings: { get: () => undefined }, delivery: { readIdentity: () => Promise.resolve(null) } });
  return createSessionReader({ config, tmux, access });
}
