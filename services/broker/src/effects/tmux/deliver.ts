/**
 * Delivers input to a pane. Security assumptions, each enforced here:
 * - Text is BYTES, never argv: `load-buffer -b <unique name> -` reads it from stdin, then
 *   `paste-buffer -p -d -b <name> -t %pane` pastes and deletes that buffer. The only
 *   things on either command line are constants, the generated buffer name and a
 *   validated pane id, so an argument ending in `;`, a leading `-`, `#(...)` or a 16 KB
 *   text can never be parsed by tmux as anything but data.
 * - `-p`: bracketed paste when (and only when) the program in the pane asked for it, so a
 *   multi-line text lands in a readline or agent input box instead of running line by
 *   line. tmux 3.3a does not sanitize pasted text: the input policy has already refused
 *   every control character but `\n` and `\t`, so `ESC[201~` cannot end the paste early.
 *   paste-buffer turns `\n` into `\r`, as a terminal does on paste.
 * - Keys are tmux key names taken from the contract's ALLOWED_KEYS constant, checked
 *   again here; leaving copy mode is the copy-mode command `cancel` (`send-keys -X`).
 * - Outcomes say whether bytes may have reached the pane: `no` when tmux refused before
 *   pasting (nothing was written), `unknown` when tmux stopped answering mid-command.
 */
import { randomBytes } from 'node:crypto';
import { ALLOWED_KEYS, type AllowedKey } from '@terminal-mcp/contract';
import { assertPaneId } from './format.js';
import { readPaneIdentity, type PaneIdentityFacts } from './pane-identity.js';
import { createTmuxCommandRunner, type TmuxCommandResult, type TmuxCommandRunner } from './tmux-command.js';

export type DeliveryOutcome = { ok: true } | { ok: false; delivered: 'no' | 'unknown'; reason: string };

export interface PaneDelivery {
  /** Identity and input facts of the pane now; null when it is gone. */
  readIdentity(paneId: string): Promise<PaneIdentityFacts | null>;
  pasteText(paneId: string, text: string): Promise<DeliveryOutcome>;
  pressKeys(paneId: string, keys: readonly AllowedKey[]): Promise<DeliveryOutcome>;
  exitCopyMode(paneId: string): Promise<DeliveryOutcome>;
}

const KEY_SET: ReadonlySet<string> = new Set(ALLOWED_KEYS);

function outcomeOf(result: TmuxCommandResult, what: string): DeliveryOutcome {
  if (result.timedOut) return { ok: false, delivered: 'unknown', reason: `tmux did not finish ${what} in time` };
  if (result.exitCode !== 0) return { ok: false, delivered: 'no', reason: `tmux refused ${what}` };
  return { ok: true };
}

export function createPaneDelivery(options: { socketName?: string | undefined; runner?: TmuxCommandRunner } = {}): PaneDelivery {
  const runner = options.runner ?? createTmuxCommandRunner({ socketName: options.socketName });
  return {
    readIdentity: (paneId) => readPaneIdentity(runner, paneId),

    async pasteText(paneId, text) {
      assertPaneId(paneId);
      const buffer = `tmcp-input-${randomBytes(12).toString('hex')}`;
      const loaded = await runner.run(['load-buffer', '-b', buffer, '-'], { input: Buffer.from(text, 'utf8') });
      if (loaded.timedOut || loaded.exitCode !== 0) {
        await runner.run(['delete-buffer', '-b', buffer]).catch(() => undefined);
        // Nothing is pasted until paste-buffer runs, whatever load-buffer did.
        return { ok: false, delivered: 'no', reason: 'tmux could not load the text' };
      }
      const pasted = await runner.run(['paste-buffer', '-p', '-d', '-b', buffer, '-t', paneId]);
      const outcome = outcomeOf(pasted, 'the paste');
      if (!outcome.ok) await runner.run(['delete-buffer', '-b', buffer]).catch(() => undefined);
      return outcome;
    },

    async pressKeys(paneId, keys) {
      assertPaneId(paneId);
      if (keys.length === 0 || keys.some((k) => !KEY_SET.has(k))) throw new Error('only allowlisted keys can be pressed');
      return outcomeOf(await runner.run(['send-keys', '-t', paneId, ...keys]), 'the keys');
    },

    async exitCopyMode(paneId) {
      assertPaneId(paneId);
      return outcomeOf(await runner.run(['send-keys', '-X', '-t', paneId, 'cancel']), 'leaving copy mode');
    },
  };
}
