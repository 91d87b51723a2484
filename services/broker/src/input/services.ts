/**
 * The input path's long-lived parts, made once per broker (start-broker.ts `assembleDeps`): the
 * audit and binding stores, the per-pane locks (built by createBroker), the read-audit
 * batcher, the HMAC key and the tmux delivery. Procedures reach them as `deps.input`.
 */
import { createBashParserLoader } from '../effects/shell-syntax/bash-parser.js';
import type { ShellParse } from '../policy/shell-review.js';
import { AppError } from '@terminal-mcp/contract';
import { createReadAuditRecorder, type ReadAuditRecorder } from '../audit/read-audit.js';
import { loadOrCreateAuditKey } from '../effects/audit-key-file.js';
import type { AuditStore } from '../effects/store/audit-store.js';
import type { BindingStore } from '../effects/store/bindings-store.js';
import type { Logger } from 'pino';
import { createPaneDelivery, type PaneDelivery } from '../effects/tmux/deliver.js';
import { createRunSignals, cursorReader, type RunSignals } from '../effects/tmux/run-signal.js';
import { createShellIntegration, type ShellIntegration } from '../effects/tmux/shell-integration.js';
import { createTmuxCommandRunner } from '../effects/tmux/tmux-command.js';
import type { InputControl, TmuxAdapter } from '../effects/tmux/types.js';
import { readPaneProcessTree } from '../effects/proc/process-tree.js';
import { readTerminalRead } from '../effects/proc/terminal-read.js';
import type { TerminalReadFacts } from '../policy/credential-reader.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import type { PaneLocks } from './pane-lock.js';
import { createReviewQueue, type ReviewQueue } from './review-queue.js';
import { createRunAnswers, type RunAnswers } from './run-answers.js';
import type { StoresOf } from '../capabilities.js';

export interface InputServices {
  audit: AuditStore;
  bindings: BindingStore;
  /** One sender per pane (pane-lock.ts), owned by the composition root. */
  locks: PaneLocks;
  /** Review mode's queue of inputs waiting for a person (review-queue.ts), in memory. */
  reviews: ReviewQueue;
  reads: ReadAuditRecorder;
  delivery: PaneDelivery;
  /** terminal_run's completion channels (effects/tmux/run-signal.ts); closed when the
   * broker stops. */
  run: RunSignals;
  /** The shell integration of this host's panes (effects/tmux/shell-integration.ts):
   * terminal_run into a local bash or zsh goes through it. */
  shells?: ShellIntegration;
  /** terminal_run's answers kept for a retry with the same idempotency key (run-answers.ts). */
  runAnswers?: RunAnswers;
  /** The pane's process tree, read now where the pane runs (effects/proc/process-tree.ts
   * here; a node's over ssh). */
  processTree(panePid: number, tmuxCommand: string): Promise<PaneProcessFacts>;
  /** The audit HMAC key; AUDIT_UNAVAILABLE when it cannot be read or created. */
  auditKey(): Buffer;
  /** How the program `pid` reads the pane's terminal now (effects/proc/terminal-read.ts):
   * the secret entry's rule for ssh. Absent where it cannot be read (a node). */
  terminalRead?(panePid: number, pid: number): Promise<TerminalReadFacts>;
  /** The bash grammar review mode judges text with (effects/shell-syntax/bash-parser.ts),
   * loaded on first use and kept. */
  shellParser(): Promise<ShellParse>;
}

export function createInputServices(deps: {
  stores: StoresOf<'input'>;
  log: Logger;
  tmuxSocket: string | null;
  locks: PaneLocks;
  tmux?: TmuxAdapter;
  /** The control client's write path: terminal_run's line is typed through it (no spawn). */
  control?: InputControl | undefined;
}): InputServices {
  const { stores, log } = deps;
  const audit = stores.audit;
  let key: Buffer | undefined;
  const runner = createTmuxCommandRunner({ socketName: deps.tmuxSocket ?? undefined });
  const run = createRunSignals({ stateDir: stores.stateDir, socketName: deps.tmuxSocket ?? undefined, runner, ...(deps.tmux ? { tmux: deps.tmux } : {}) });
  const shells = createShellIntegration({ stateDir: stores.stateDir, readCursor: cursorReader(runner, deps.tmux), lineEditing: (paneId) => run.lineEditing(paneId) });
  return {
    audit,
    bindings: stores.bindings,
    locks: deps.locks,
    reviews: createReviewQueue(),
    reads: createReadAuditRecorder(audit, log),
    delivery: createPaneDelivery({ socketName: deps.tmuxSocket ?? undefined, ...(deps.tmux ? { tmux: deps.tmux } : {}), ...(deps.control ? { control: deps.control } : {}) }),
    run,
    shells,
    runAnswers: createRunAnswers(),
    processTree: (panePid, tmuxCommand) => readPaneProcessTree(panePid, tmuxCommand),
    shellParser: createBashParserLoader(),
    terminalRead: (panePid, pid) => readTerminalRead(panePid, pid),
    auditKey() {
      if (key) return key;
      try {
        key = loadOrCreateAuditKey(stores.stateDir);
        return key;
      } catch (err) {
        log.error({ event: 'audit.key_unavailable', err: (err as Error).message }, 'audit HMAC key unavailable');
        throw new AppError('AUDIT_UNAVAILABLE', 'the audit log is not available, so nothing was sent');
      }
    },
  };
}

/** Broker start: attempts left PENDING by a broker that stopped mid-send are reported
 * DELIVERY_UNKNOWN (never re-sent); the audit key is made if missing (an unusable one is
 * logged, and input is refused with AUDIT_UNAVAILABLE, reads unaffected). */
export function recoverInterruptedInput(deps: { stores: StoresOf<'input'>; log: Logger }): void {
  const audit = deps.stores.audit;
  const recovered = audit.recoverPending(Date.now());
  if (recovered > 0) {
    deps.log.warn({ event: 'audit.delivery_unknown', count: recovered }, 'input attempts interrupted by a broker stop are now DELIVERY_UNKNOWN');
  }
  audit.pruneIdempotency(Date.now() - 24 * 3600 * 1000);
  try {
    loadOrCreateAuditKey(deps.stores.stateDir);
  } catch (err) {
    // Reads keep working; every input attempt answers AUDIT_UNAVAILABLE until it is fixed.
    deps.log.error({ event: 'audit.key_unavailable', err: (err as Error).message }, 'audit HMAC key unusable: input is refused until it is fixed');
  }
}

/** Broker stop: refuses to begin new attempts (BROKER_UNAVAILABLE, recorded FAILED:
 * nothing sent), waits (at most `settleMs`) for the attempts still PENDING to finish with
 * their own outcome, then closes the rest as DELIVERY_UNKNOWN (what a restart would say of
 * them; never re-sent). A stop thus leaves no PENDING row; an attempt that finishes
 * after this still writes its true outcome over it. */
export async function closeInFlightInput(deps: { audit: AuditStore; log: Logger }, settleMs: number): Promise<void> {
  // Calls accepted before the sockets closed may still be resolving their target: none of
  // them may write a PENDING row after this step has closed them.
  deps.audit.refuseNewAttempts();
  const deadline = Date.now() + settleMs;
  while (deps.audit.countPending() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  const closed = closeInterruptedInput(deps);
  if (closed > 0) deps.log.warn({ event: 'audit.delivery_unknown', count: closed, at: 'stop' }, 'input attempts still in flight at the stop are now DELIVERY_UNKNOWN');
}

/** The synchronous close of PENDING attempts, also for a forced stop (bin/main.ts): how
 * many it closed; 0 when the store is already closed or failing. */
export function closeInterruptedInput(deps: { audit: AuditStore }): number {
  try {
    return deps.audit.recoverPending(Date.now());
  } catch {
    return 0;
  }
}
