/**
 * The operator's grants as the rest of the broker consumes them: a lookup for the read
 * gate, and `grantFor` for the input path. Both read grants.db at the moment of asking;
 * neither trusts what a client says about a session.
 */
import type { BrokerDeps } from '../deps.js';
import { grantsStore } from '../effects/store/grants-store.js';
import type { SessionFacts } from '../effects/tmux/types.js';
import type { EffectiveGrant } from '../policy/grants.js';
import { readGrantOf, type GrantLookup } from '../reads/read-gate.js';

/** The stored grant under a name, whatever its state (for `ReadGateDeps.grants`). */
export function grantLookupOf(deps: Pick<BrokerDeps, 'stores'>): GrantLookup {
  const store = grantsStore(deps.stores.db('grants'));
  return (sessionName) => store.find(sessionName);
}

/**
 * What the operator's grant admits for this live session right now: `{ read, input }`
 * when a grant is pinned to exactly this session (server pid, session id, creation time)
 * and unexpired, else null. Never for a sensitive name. `input` implies `read`.
 *
 * For the input path (policy/input.ts `grant?: { input: boolean }`): pass facts re-read
 * at the moment of acting. A grant does not override `permissions.terminal_input`, deny
 * rules, the guarded-command or copy-mode checks.
 */
export function grantFor(deps: Pick<BrokerDeps, 'stores'>, facts: SessionFacts, now: number = Date.now()): EffectiveGrant | null {
  return readGrantOf({ grants: grantLookupOf(deps), now: () => now }, facts);
}
