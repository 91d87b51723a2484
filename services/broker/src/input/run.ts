/**
 * terminal_run: type one command line at a shell prompt and report how it ended.
 *
 * The line goes through the input attempt like every other send (attempt.ts: THE input
 * authorization on the caller and on facts re-read under the pane's lease, an audit row
 * before typing, tmux's last-instant foreground check); the policy adds its own gates for
 * a command (policy/input.ts: the foreground must be a shell in run_allowed_shells, one
 * line, no guarded command named in it).
 *
 * This host's bash and zsh (`integratedAct`): the shell's own integration
 * (effects/tmux/shell-integration.ts) is installed once per shell and reports over private
 * FIFOs when a prompt is shown, a command line starts and with which status it ended. A
 * run checks that the shell is at its prompt (else FOREGROUND_NOT_ALLOWED, nothing typed)
 * and that its input line is empty (else INPUT_LINE_NOT_EMPTY, unless clear_line), then
 * types exactly the command and Enter; the end is the next prompt mark, and the output is
 * what lies between the typed line and that prompt. dash, sh and ksh cannot carry the
 * integration (no hook when a line starts) and are refused, naming the shell.
 *
 * A node's panes (no integration there yet) still get the older wrapper (`runWrapper`):
 * the command quoted into `eval '...'` followed by a status line of shell builtins that
 * writes `$?` into a FIFO pair the node holds (effects/ssh/node-run-fifos.ts) and waits for
 * the broker's ack; in bash a one-shot PROMPT_COMMAND, elsewhere a subshell with INT
 * trapped, so Ctrl-C ends the command as at a prompt and still reports 130. If the shell is
 * back at its prompt and no status line ran, the wait sees it in the process tree (the
 * shell leads the terminal's foreground group with no child, its line editor in raw mode,
 * twice in a row) and answers NO_STATUS.
 *
 * Either way printed text ends nothing: only a write into a FIFO does.
 *
 * Waits at most timeout_s; still running then, the answer is RUNNING with a resume token
 * (live/resume-tokens.ts, the wait tools' design) that a later call passes back.
 */
import { AppError, readAppErrorData, RUN_LIMITS, type RunResult } from '@terminal-mcp/contract';
import { recordRead } from '../audit/record-read.js';
import type { EndCapture, RunChannel, RunMark, RunSignals } from '../effects/tmux/run-signal.js';
import type { AccessGate } from '../access/gate.js';
import type { Host } from '../nodes/host-set.js';
import { qualify } from '../nodes/node-names.js';
import type { PaneProcessFacts } from '../policy/foreground.js';
import type { DeliveryReads } from '../reads/delivery-reads.js';
import type { CleanText } from '../reads/pane-text.js';
import type { PendingRun } from '../live/run-tokens.js';
import { samePane } from '../policy/identity.js';
import type { TargetRef } from '../access/target.js';
import { classifyDelivery } from './attempt-outcome.js';
import { authorizedForeground, runInputAttempt, type AttemptCaller } from './attempt.js';
import { authorizeInputCaller } from './authorize.js';
import { answerOn } from './node-route.js';
import type { IntegrableShell } from '../effects/tmux/shell-hook.js';
import type { ShellIntegration } from '../effects/tmux/shell-integration.js';
import { holdNodeRunIfRequested } from '../effects/fault-injection.js';
import { checkLineBeforeSubmit, isIntegrable } from './input-line.js';
import { idempotencyOf, sentEarlier } from './replay.js';
import type { ActContext, ActOutcome } from './attempt.js';
import { recordRejectedInputCall } from './rejected-call.js';

/** How often a running command's pane is looked at (identity, process tree). */
const POLL_MS = 300;
/** The shell must look back at its prompt this many looks in a row to be believed. */
const PROMPT_LOOKS = 2;


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSIX single quoting: the text is data to `eval`, whatever it contains. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The line typed at the prompt (see the header for why bash differs). A leading space
 * keeps it out of history where the shell ignores such lines (HISTCONTROL=ignorespace,
 * zsh HIST_IGNORE_SPACE). */
export function runWrapper(command: string, channel: Pick<RunChannel, 'statusPath' | 'ackPath'>, shell: string): string {
  // Builtins only (effects/tmux/run-signal.ts): hold the ack FIFO open, write the status,
  // wait for the ack. `<>` never blocks on a FIFO; `[ -p ]` skips a pair already removed
  // (a redirection would create a regular file in its place); errors (dash has no
  // `read -t`) stay off the screen.
  const status = shellQuote(channel.statusPath);
  const ack = shellQuote(channel.ackPath);
  const report = `[ -p ${ack} ] && { [ -p ${status} ] && echo "$__tmcp_s" 1<>${status}; read -t 3 __tmcp_ack; unset __tmcp_ack; } 0<>${ack} 2>/dev/null`;
  if (shell === 'bash') {
    // Runs once, at the next prompt, then puts the caller's PROMPT_COMMAND back and runs
    // it with the command's status.
    const hook = `__tmcp_s=$?; PROMPT_COMMAND=$__tmcp_pc; unset __tmcp_pc; ${report}; eval "unset __tmcp_s; (exit $__tmcp_s); $PROMPT_COMMAND"`;
    return ` __tmcp_pc=\${PROMPT_COMMAND-}; PROMPT_COMMAND=${shellQuote(hook)}; eval ${shellQuote(command)}`;
  }
  return ` trap : INT; ( eval ${shellQuote(command)} ); __tmcp_s=$?; trap - INT; ${report}; unset __tmcp_s`;
}

interface Ending {
  state: RunResult['state'];
  exitStatus: number | null;
  /** First absolute line after the output (the new prompt, or the cursor line while running). */
  endLine: number;
  historySize: number;
  cursorX: number;
  /** The output's lines, read with the facts above (`captureEnd`); absent: not yet. */
  output?: CleanText;
}

/** Tries at reading the end's facts and output in one write before they are read apart. */
const END_CAPTURE_TRIES = 3;

/** The pane's facts after a run's status line, and its output lines (the typed line to
 * `endLine - 1`) with them in one write: tmux runs both in one turn of its loop, so the
 * capture's line numbers are those of the facts' history size. They are computed from
 * `historySize` (the mark's: the shell waited while it was read, and its prompt seldom
 * scrolls) and, when tmux's differs, again from tmux's. null: the pane is gone or has
 * another process. */
export async function captureEnd(reads: EndReads, run: PendingRun, endLine: number, historySize: number): Promise<Omit<Ending, 'state' | 'exitStatus' | 'endLine'> | null> {
  const { paneId, panePid } = run.identity;
  const read = endCapture(reads, paneId, panePid, run.startLine);
  if (read !== undefined && endLine - 1 >= run.startLine) {
    let expected = historySize;
    for (let i = 0; i < END_CAPTURE_TRIES; i++) {
      const end = await read(endLine, expected);
      if (end === null) return null;
      if (end.facts.historySize === expected) return { historySize: expected, cursorX: end.facts.cursorX, ...(end.output !== null ? { output: end.output } : {}) };
      expected = end.facts.historySize;
    }
  }
  // The pane's facts through the control client (no spawn), for the capture that follows.
  const facts = await reads.facts(paneId);
  return facts !== null && facts.panePid === panePid ? { historySize: facts.historySize, cursorX: facts.cursor.x } : null;
}

/** The delivery reads a run's end is read with. */
type EndReads = Pick<DeliveryReads, 'facts' | 'factsWithOutput'>;

/** How the run's end and output are read in one write (run-signal.ts EndCapture): the
 * rows from the typed line to `endLine - 1`, numbered against `historySize`, with the
 * cursor facts of that write; facts of another pane process are no end of this run
 * (null). Used by the run's channel while the shell waits, and by captureEnd after. */
function endCapture(reads: EndReads, paneId: string, panePid: number, startLine: number): EndCapture | undefined {
  const withOutput = reads.factsWithOutput?.bind(reads);
  if (withOutput === undefined) return undefined;
  return async (endLine, historySize) => {
    const noRows = endLine - 1 < startLine;
    const read = noRows ? null : await withOutput(paneId, startLine - historySize, endLine - 1 - historySize);
    const facts = noRows ? await reads.facts(paneId) : (read?.facts ?? null);
    if (facts === null || facts.panePid !== panePid) return null;
    return { facts: { panePid: facts.panePid, historySize: facts.historySize, cursorX: facts.cursor.x, cursorY: facts.cursor.y }, output: read?.output ?? null };
  };
}

/** The parts of the host a run's pane is on: this host's, or its node's (node-route.ts
 * routes the attempt there; a resumed run goes back to the same host). */
interface RunHost {
  signals: RunSignals;
  reads: DeliveryReads;
  processTree(panePid: number, tmuxCommand: string): Promise<PaneProcessFacts>;
  access: AccessGate;
  /** The Host itself: its connection state and how it names the answer. */
  host: Host;
}

/** The run's host, resolved once per call (a resumed run goes back to the same host). */
function runHost(caller: AttemptCaller, node: string | undefined): RunHost {
  const host = caller.deps.hosts.of(node);
  if (host === undefined || host.runSignals === undefined) throw new AppError('NODE_UNAVAILABLE', `node ${node ?? ''} is no longer configured for input`, 'Start the command again on a configured node.');
  const reads = host.reader.delivery;
  if (host.node === undefined) return { signals: withShellRuns(host.runSignals, caller.deps.input.shells), reads, processTree: (pid, command) => host.processTree(pid, command), access: host.access, host };
  // A node that went down answers NODE_UNAVAILABLE, not "the pane is gone" (LOST): its
  // panes may well be running, and the run is collected once it is back.
  const identity = async (paneId: string) => {
    const live = await reads.identity(paneId);
    if (live === null) host.connected();
    return live;
  };
  return { signals: host.runSignals, reads: { ...reads, identity }, processTree: (pid, command) => host.processTree(pid, command), access: host.access, host };
}

/** This host's run signals, with the channels of integrated shells (ids `sh-…`) answered
 * by the shell integration. */
function withShellRuns(signals: RunSignals, shells: ShellIntegration | undefined): RunSignals {
  if (shells === undefined) return signals;
  return {
    ...signals,
    open: (paneId, capture) => signals.open(paneId, capture),
    waitMark: (id, ms) => (shells.owns(id) ? shells.waitMark(id, ms) : signals.waitMark(id, ms)),
    takeMark: (id) => (shells.owns(id) ? shells.takeMark(id) : signals.takeMark(id)),
    release: (id) => (shells.owns(id) ? shells.release(id) : signals.release(id)),
    lineEditing: (paneId) => signals.lineEditing(paneId),
    close: () => signals.close(),
  };
}

/** Waits for the run to end, at most `timeoutMs`. */
async function awaitEnding(host: RunHost, run: PendingRun, timeoutMs: number): Promise<Ending> {
  const paneId = run.identity.paneId;
  const channel = run.channel;
  const deadline = Date.now() + timeoutMs;
  const lost = (historySize = 0, line = run.startLine): Ending => ({ state: 'LOST', exitStatus: null, endLine: line, historySize, cursorX: 0 });
  const done = async (mark: RunMark): Promise<Ending> => {
    // Read with the end, while the shell waited (run-signal.ts): nothing more to read.
    if (mark.output) return { state: 'DONE', exitStatus: mark.exitStatus, endLine: mark.endLine, historySize: mark.historySize, cursorX: mark.cursorX, output: mark.output };
    const end = await captureEnd(host.reads, run, mark.endLine, mark.historySize);
    if (end === null) return lost();
    return { state: 'DONE', exitStatus: mark.exitStatus, endLine: mark.endLine, ...end };
  };

  // A status line that ran while no call waited (the last one answered RUNNING) left its mark.
  const early = host.signals.takeMark(channel);
  if (early) return done(early);

  let marked: RunMark | null = null;
  let waited = false;
  const waiting = host.signals.waitMark(channel, timeoutMs).then((m) => ((marked = m), (waited = true)));
  let promptLooks = 0;
  for (;;) {
    const tick = sleep(Math.max(0, Math.min(POLL_MS, deadline - Date.now())));
    await (waited ? tick : Promise.race([waiting, tick]));
    const mark = marked as RunMark | null;
    if (mark !== null) return done(mark);
    const live = await host.reads.identity(paneId);
    if (!live || !samePane(live, run.identity)) return lost();
    const cursorLine = live.historySize + live.cursorY;
    const tree = await host.processTree(live.panePid, live.currentCommand);
    if (tree.source === 'proc' && run.shellPid !== null) {
      if (!tree.processes.some((p) => p.pid === run.shellPid)) return lost(live.historySize, cursorLine);
      const shellIdle = tree.foregroundGroup === run.shellPid && !tree.processes.some((p) => p.ppid === run.shellPid);
      promptLooks = shellIdle && (await host.signals.lineEditing(paneId)) === true ? promptLooks + 1 : 0;
      if (promptLooks >= PROMPT_LOOKS) {
        const mark = host.signals.takeMark(channel);
        if (mark) return done(mark);
        return { state: 'NO_STATUS', exitStatus: null, endLine: cursorLine, historySize: live.historySize, cursorX: live.cursorX };
      }
    }
    if (Date.now() >= deadline) {
      // A mark set meanwhile is this run's end (not to be lost between this answer and
      // the next call).
      const late = host.signals.takeMark(channel);
      if (late !== null) return done(late);
      return { state: 'RUNNING', exitStatus: null, endLine: cursorLine + 1, historySize: live.historySize, cursorX: live.cursorX };
    }
  }
}

/** The redacted lines between the typed line and `endLine`, cut to the last ones. */
async function outputOf(reads: DeliveryReads, run: PendingRun, ending: Ending) {
  if (ending.state === 'LOST' || ending.endLine - 1 < run.startLine) return { text: '', lines: 0, truncated: false, redactions: 0 };
  // Relative to the screen now (negative: history); -J joins wrapped rows.
  const clean = ending.output ?? (await reads.outputLines(run.identity.paneId, run.startLine - ending.historySize, ending.endLine - 1 - ending.historySize));
  // The first joined line is the prompt with the typed wrapper.
  let lines = clean.lines.slice(1);
  let truncated = false;
  if (lines.length > RUN_LIMITS.outputLines) {
    lines = lines.slice(-RUN_LIMITS.outputLines);
    truncated = true;
  }
  let text = lines.join('\n');
  if (text.length > RUN_LIMITS.outputChars) {
    text = text.slice(-RUN_LIMITS.outputChars);
    text = text.slice(text.indexOf('\n') + 1);
    truncated = true;
  }
  return { text, lines: text === '' ? 0 : text.split('\n').length, truncated, redactions: clean.redactions };
}

async function answer(caller: AttemptCaller, host: RunHost, run: PendingRun, timeoutMs: number, token: string | null): Promise<RunResult> {
  const signals = host.signals;
  let ending: Ending;
  let output: Awaited<ReturnType<typeof outputOf>>;
  try {
    ending = await awaitEnding(host, run, timeoutMs);
    output = await outputOf(host.reads, run, ending);
  } catch (err) {
    // No answer to resume from: the channel goes with the call.
    signals.release(run.channel);
    if (token !== null) caller.deps.live.runTokens.retire(token);
    throw err;
  }
  // Only a run still RUNNING keeps its channel (for the call that resumes it).
  if (ending.state !== 'RUNNING') signals.release(run.channel);
  const session = qualify(run.node, run.sessionName);
  recordRead(caller, 'terminal_run', { session, sessionId: run.identity.sessionId, paneId: run.identity.paneId, lineCount: output.lines });
  const tokens = caller.deps.live.runTokens;
  let resume: string | null = null;
  if (ending.state === 'RUNNING') resume = token !== null ? (tokens.renew(token)?.token ?? null) : tokens.issue(run).token;
  else if (token !== null) tokens.retire(token);
  return {
    state: ending.state,
    session,
    pane_id: run.identity.paneId,
    audit_id: run.auditId,
    exit_status: ending.exitStatus,
    output: output.text,
    output_lines: output.lines,
    truncated: output.truncated,
    redactions: output.redactions,
    duration_ms: Date.now() - run.startedAt,
    cursor: { line: ending.endLine, x: ending.cursorX },
    resume_token: resume,
  };
}

const timeoutMsOf = (seconds: number | undefined) => Math.round((seconds ?? RUN_LIMITS.defaultTimeoutSeconds) * 1000);

/** An act's refusal after the audit row (nothing of the command typed): its code and why. */
interface RunRefusal {
  refused: { code: 'FOREGROUND_NOT_ALLOWED' | 'INPUT_LINE_NOT_EMPTY' | 'INTERNAL' | 'NODE_UNAVAILABLE'; message: string; hint?: string };
}

/** A prompt mark still on its way is awaited this long before the hook is taken as gone. */
const HOOK_GRACE_MS = 1_000;

/**
 * A run into a local bash or zsh through its shell integration
 * (effects/tmux/shell-integration.ts): installed at the first run into this shell, then
 * the shell's own marks say whether it is at its prompt, what is on its input line, and
 * when the command ended with which status. What is typed is exactly the command.
 */
async function integratedAct(ctx: ActContext, shells: ShellIntegration, shell: IntegrableShell, shellPid: number, clearLine: boolean, base: Omit<PendingRun, 'channel' | 'startLine' | 'startedAt'>): Promise<ActOutcome<PendingRun | RunRefusal>> {
  const { target, live, decision, services, reads } = ctx;
  const paneId = target.identity.paneId;
  const key = { paneId, panePid: live.panePid, shellPid };
  const foreground = authorizedForeground(live);
  const refuse = (code: RunRefusal['refused']['code'], message: string, hint?: string): ActOutcome<RunRefusal> => ({ decision: 'FAILED', errorCode: code, value: { refused: { code, message, ...(hint ? { hint } : {}) } } });
  // Not at its prompt by its marks, yet its line editor reads a command line: the hook is
  // gone (a command replaced PROMPT_COMMAND or precmd); it is installed again.
  if (shells.state(key) === 'running' && (await services.run.lineEditing(paneId)) === true) await shells.forgetIfSilent(key, HOOK_GRACE_MS);
  // A hook an earlier broker installed in this very shell: its pair is taken over, not
  // installed again (the gates found the shell leading the terminal, at its prompt).
  const adopted = shells.state(key) === null && shells.adoptable(paneId, live.panePid).some((c) => c.shellPid === shellPid && c.shell === shell) && shells.adopt(key, shell);
  const delivery = services.delivery;
  const ensured = await shells.ensure(key, shell, {
    holdBuffer: (name, code) => delivery.holdHookBuffer(name, code),
    dropBuffer: (name) => delivery.dropHookBuffer(name),
    typeLine: (line) => delivery.pasteLine(paneId, line, foreground),
  });
  if (!ensured.ok) {
    if (ensured.typed === 'unknown') return { decision: 'DELIVERY_UNKNOWN', errorCode: 'TMUX_UNAVAILABLE', value: { refused: { code: 'INTERNAL', message: `${ensured.reason}; the shell integration line may have been typed, the command was not` } } };
    return refuse('FOREGROUND_NOT_ALLOWED', `${ensured.reason}; the command was not typed`, `terminal_run installs a small hook into ${shell} at its prompt; check with terminal_read_since what the pane shows, then retry`);
  }
  const notAtPrompt = () =>
    refuse(
      'FOREGROUND_NOT_ALLOWED',
      `the ${shell} in ${paneId} is not at its prompt: its shell integration reported a command line that started and has not ended (the foreground is ${JSON.stringify(live.currentCommand)}, e.g. a script reading input, a REPL or a pager started from the shell); nothing was typed`,
      'Wait for it to finish (terminal_wait_for_state), or use terminal_send_task / terminal_send_text to type into what runs.',
    );
  if (shells.state(key) !== 'prompt') return notAtPrompt();
  const lineRefusal = await checkLineBeforeSubmit(ctx, { key, shell, adopted }, clearLine, null, 'typing the command');
  if (lineRefusal !== null) {
    // A command line that started meanwhile (its mark came while the editor was awaited).
    if (lineRefusal.refused.code === 'FOREGROUND_NOT_ALLOWED' && shells.state(key) === 'running') return notAtPrompt();
    return refuse(lineRefusal.refused.code, lineRefusal.refused.message, lineRefusal.refused.hint);
  }
  // The line the command is typed on: read now (the hook's install, if any, is done).
  const facts = await reads.facts(paneId);
  if (facts === null || facts.panePid !== live.panePid) return refuse('FOREGROUND_NOT_ALLOWED', 'the pane changed before the command was typed; nothing was typed');
  const startLine = facts.historySize + facts.cursor.y;
  const channel = shells.beginRun(key, endCapture(reads, paneId, live.panePid, startLine));
  const run: PendingRun = { ...base, channel, startLine, startedAt: Date.now() };
  let typed;
  try {
    typed = await services.delivery.pasteLine(paneId, decision.action === 'run_command' ? decision.text : '', foreground);
  } catch (err) {
    shells.release(channel);
    throw err;
  }
  if (!typed.ok) {
    shells.release(channel);
    return { ...classifyDelivery(typed), value: run };
  }
  const receipt = { run: { shell, channel, integrated: true, ...(clearLine && ensured.ok ? { cleared_line: true } : {}) } };
  return { decision: 'SENT', errorCode: null, value: run, receiptJson: JSON.stringify(receipt) };
}

export async function runCommand(caller: AttemptCaller, args: { target: TargetRef; command: string; timeoutS?: number | undefined; clearLine?: boolean | undefined; idempotencyKey?: string }): Promise<RunResult> {
  const timeoutMs = timeoutMsOf(args.timeoutS);
  const idempotency = idempotencyOf(caller, args.idempotencyKey, ['terminal_run', args.target.session ?? null, args.target.pane ?? null, args.command]);
  const result = await runInputAttempt<PendingRun | RunRefusal | null>(
    caller,
    { tool: 'terminal_run', target: args.target, request: { kind: 'command', text: args.command }, dryRun: false, ...(idempotency ? { idempotency } : {}) },
    // The attempt's context is the target host's (a node's for `node:session`).
    async (ctx) => {
      const { target, live, decision, auditId, services, reads, node } = ctx;
      if (decision.action !== 'run_command') throw new AppError('INTERNAL', 'unexpected input decision');
      const base = { role: caller.role, client: caller.actor, node, sessionName: target.sessionName, identity: target.identity, shellPid: decision.shellPid, auditId };
      // This host's bash and zsh: through their shell integration. A node's panes, and a
      // shell whose pid the process tree did not give, keep the typed status line below.
      const shells = node === undefined ? services.shells : undefined;
      if (shells !== undefined && decision.shellPid !== null) {
        if (!isIntegrable(decision.shell)) {
          return {
            decision: 'FAILED',
            errorCode: 'FOREGROUND_NOT_ALLOWED',
            value: {
              refused: {
                code: 'FOREGROUND_NOT_ALLOWED',
                message: `terminal_run needs shell integration, which ${decision.shell} cannot carry (it has no hook that runs when a command line starts); nothing was typed`,
                hint: `Start bash or zsh in the pane for terminal_run, or type into this ${decision.shell} with terminal_send_task.`,
              },
            },
          };
        }
        return integratedAct(ctx, shells, decision.shell, decision.shellPid, args.clearLine === true, base);
      }
      // The channel exists before the line is typed: a status line that runs at once
      // finds its FIFOs. It goes again if nothing was typed.
      const startLine = live.historySize + live.cursorY;
      let channel: RunChannel;
      try {
        if (node !== undefined) await holdNodeRunIfRequested('before-open');
        channel = await services.run.open(target.identity.paneId, endCapture(reads, target.identity.paneId, live.panePid, startLine));
      } catch {
        // Nothing typed (not DELIVERY_UNKNOWN, which an error thrown from here would be).
        // On a node the channel is made over its link: a link that broke is the node's.
        if (node !== undefined) {
          return { decision: 'FAILED', errorCode: 'NODE_UNAVAILABLE', value: { refused: { code: 'NODE_UNAVAILABLE', message: `the link to node ${node} broke before anything was typed (its run channel could not be made): nothing was typed`, hint: `Call terminal_node_health for node ${node}'s state, then run the command again.` } } };
        }
        return { decision: 'FAILED', errorCode: 'INTERNAL', value: null };
      }
      const line = runWrapper(decision.text, channel, decision.shell);
      const run: PendingRun = { ...base, channel: channel.id, startLine, startedAt: Date.now() };
      let typed;
      try {
        typed = await services.delivery.pasteLine(target.identity.paneId, line, authorizedForeground(live));
      } catch (err) {
        services.run.release(channel.id);
        throw err;
      }
      if (!typed.ok) {
        // Typed or not (`unknown`), no call will wait on it.
        services.run.release(channel.id);
        return { ...classifyDelivery(typed), value: run };
      }
      return { decision: 'SENT', errorCode: null, value: run, receiptJson: JSON.stringify({ run: { shell: decision.shell, channel: channel.id } }) };
    },
  );
  if (result.kind === 'blocked') throw result.error;
  if (result.kind === 'replayed') {
    // A retry with the key: the first call's answer (awaited if it is still coming).
    const earlier = sentEarlier(result);
    const first = caller.deps.input.runAnswers?.get(earlier.id);
    let answered: RunResult | null = null;
    if (first !== undefined) answered = await first.catch(() => null);
    if (answered !== null) return { ...answered, replayed: true };
    throw new AppError('DELIVERY_UNKNOWN', `the earlier call with this idempotency_key typed the command (audit id ${earlier.id}); its outcome is not known here (its answer failed, or the broker restarted): look with terminal_read_since. Nothing was typed again now`);
  }
  if (result.kind !== 'acted') throw new AppError('INTERNAL', 'unexpected input attempt result');
  const outcome = result.outcome;
  const value = outcome.value;
  if (value !== null && 'refused' in value) {
    if (outcome.decision === 'DELIVERY_UNKNOWN') throw new AppError('DELIVERY_UNKNOWN', `${value.refused.message} (audit id ${result.auditId})`);
    throw new AppError(value.refused.code, value.refused.message, value.refused.hint);
  }
  if (outcome.decision === 'FAILED') {
    if (outcome.errorCode === 'INTERNAL') throw new AppError('INTERNAL', "terminal_run could not make its completion channel (the broker's state directory, or a node's temp directory); nothing was typed");
    throw outcome.errorCode === 'IDENTITY_CHANGED'
      ? new AppError('IDENTITY_CHANGED', "the pane's foreground program changed between the check and typing; nothing was typed")
      : new AppError('TMUX_UNAVAILABLE', 'tmux refused the input; nothing was typed');
  }
  if (outcome.decision === 'DELIVERY_UNKNOWN') throw new AppError('DELIVERY_UNKNOWN', `tmux stopped answering while typing: the command may or may not have been typed (audit id ${result.auditId})`);
  if (value === null) throw new AppError('INTERNAL', 'unexpected input attempt result');
  if (value.node !== undefined) await holdNodeRunIfRequested('after-typed');
  const answering = answerTyped(caller, value, timeoutMs, result.auditId);
  if (idempotency !== undefined) caller.deps.input.runAnswers?.remember(result.auditId, answering);
  return answering;
}

/** The answer of a run that was typed. A node whose link breaks before the end is read
 * answers DELIVERY_UNKNOWN: the command was typed, and its outcome is not known (never
 * NODE_UNAVAILABLE, which says nothing was). */
async function answerTyped(caller: AttemptCaller, run: PendingRun, timeoutMs: number, auditId: number): Promise<RunResult> {
  try {
    return await answer(caller, runHost(caller, run.node), run, timeoutMs, null);
  } catch (err) {
    const code = readAppErrorData(err)?.code;
    if (run.node === undefined || (code !== 'NODE_UNAVAILABLE' && code !== 'TMUX_UNAVAILABLE' && code !== 'TIMEOUT')) throw err;
    throw new AppError(
      'DELIVERY_UNKNOWN',
      `the command was typed on node ${run.node} (audit id ${auditId}), then the link broke before its end was read: its outcome is not known. Look with terminal_read_since once the node is back; do not type it again blindly`,
    );
  }
}

/** Collects a run that answered RUNNING: the same caller, the read gate again on the
 * pane's session as it is now. */
export async function resumeRun(caller: AttemptCaller, args: { token: string; timeoutS?: number | undefined }): Promise<RunResult> {
  let run: PendingRun;
  try {
    authorizeInputCaller(caller);
    run = caller.deps.live.runTokens.lookup(args.token, caller.role, caller.actor);
  } catch (err) {
    // Audited like every refused input call (no session: the token named none it may know).
    recordRejectedInputCall(caller, 'input.run', null, readAppErrorData(err)?.code ?? 'INTERNAL');
    throw err;
  }
  let host: RunHost;
  try {
    host = runHost(caller, run.node);
  } catch (err) {
    caller.deps.live.runTokens.retire(args.token);
    throw err;
  }
  // Down now: the token stays, for a call once the node is back.
  host.host.connected();
  const live = await host.reads.identity(run.identity.paneId);
  if (live && samePane(live, run.identity)) {
    const access = host.access;
    if (!access.canRead(live.sessionName, access.grantOf(live.sessionName, run.identity))) {
      caller.deps.live.runTokens.retire(args.token);
      host.signals.release(run.channel);
      throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
    }
  }
  const collect = () => answer(caller, host, run, timeoutMsOf(args.timeoutS), args.token);
  // A node's link lost while collecting answers NODE_UNAVAILABLE, as the first call does.
  return answerOn(host.host, collect);
}
