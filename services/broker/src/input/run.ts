/**
 * terminal_run: type one command line at a shell prompt and report how it ended.
 *
 * The line goes through the input attempt like every other send (attempt.ts: THE input
 * authorization on the caller and on facts re-read under the pane's lease, an audit row
 * before typing, tmux's last-instant foreground check); the policy adds its own gates for
 * a command (policy/input.ts: the foreground must be a shell in run_allowed_shells, one
 * line, no guarded command named in it). What is typed is the caller's command, quoted
 * into `eval '...'` (so `;`, `$()` and quotes run exactly as typed), followed by a status
 * line that sets a pane option to "<$?> #{history_size} #{cursor_y}" and signals a tmux
 * channel named by a 128-bit nonce (effects/tmux/run-signal.ts). Printing the nonce or
 * any marker text ends nothing: only a tmux command does.
 *
 * Ctrl-C must end the command as it does at a prompt (the rest of `build; deploy` must
 * not run) and still leave a status line that runs:
 * - bash: the status line is a one-shot PROMPT_COMMAND set before the command, so it
 *   runs when bash is back at its prompt however the line ended (an interrupted line is
 *   dropped by bash, `$?` is 130); the command runs in the shell itself, so `cd` and
 *   variables persist like typed commands;
 * - other POSIX shells (dash, sh, zsh, ksh): the command runs in a subshell `( eval ... )`
 *   that dies with the interrupt, while the shell traps INT for the length of the line
 *   and runs the status line (`$?` 130); `cd` and variables do not outlive the run.
 * If the shell is back at its prompt and no status line ran (the command replaced
 * PROMPT_COMMAND, a shell that drops the line anyway), the wait sees it in the process
 * tree (the shell leads the terminal's foreground group with no child, its line editor in
 * raw mode, twice in a row) and answers NO_STATUS.
 *
 * Waits at most timeout_s; still running then, the answer is RUNNING with a resume token
 * (live/resume-tokens.ts, the wait tools' design) that a later call passes back.
 */
import { randomBytes } from 'node:crypto';
import { AppError, readAppErrorData, RUN_LIMITS, type RunResult } from '@terminal-mcp/contract';
import { recordRead } from '../audit/record-read.js';
import { readPaneProcessTree } from '../effects/proc/process-tree.js';
import { runChannel, runOption, type RunMark } from '../effects/tmux/run-signal.js';
import type { PendingRun } from '../live/run-tokens.js';
import { samePane } from '../policy/identity.js';
import { cleanPaneText } from '../reads/pane-text.js';
import type { TargetRef } from '../access/target.js';
import { classifyDelivery } from './attempt-outcome.js';
import { authorizedForeground, runInputAttempt, type AttemptCaller } from './attempt.js';
import { authorizeInputCaller } from './authorize.js';
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
export function runWrapper(command: string, nonce: string, paneId: string, socketPath: string, shell: string): string {
  // One tmux client for both commands (`\;` is tmux's command separator).
  const report = `tmux -S ${shellQuote(socketPath)} set -p -F -t ${paneId} ${runOption(nonce)} "$__tmcp_s #{history_size} #{cursor_y}" \\; wait-for -S ${runChannel(nonce)}`;
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
}

/** A wait on the run's channel that began before the line was typed (runCommand), so the
 * waiting tmux client is up by the time the shell signals: its spawn is not on the path
 * from the command's end to the answer. */
interface EarlyWait {
  waiting: Promise<RunMark | null>;
  deadline: number;
}

/** Waits for the run to end, at most `timeoutMs` (or until the early wait's deadline). */
async function awaitEnding(caller: AttemptCaller, run: PendingRun, timeoutMs: number, resumed: boolean, early?: EarlyWait): Promise<Ending> {
  const services = caller.deps.input;
  const paneId = run.identity.paneId;
  const deadline = early?.deadline ?? Date.now() + timeoutMs;
  const lost = (historySize = 0, line = run.startLine): Ending => ({ state: 'LOST', exitStatus: null, endLine: line, historySize, cursorX: 0 });
  const done = async (exitStatus: number, endLine: number): Promise<Ending> => {
    // The pane's facts through the control client (no spawn): the mark came from it.
    const facts = await caller.deps.tmux.paneFacts(paneId);
    if (!facts || facts.panePid !== run.identity.panePid) return lost();
    return { state: 'DONE', exitStatus, endLine, historySize: facts.historySize, cursorX: facts.cursor.x };
  };

  // A signal sent while no call waited (the last call's waiter timed out) left the mark.
  if (resumed) {
    const early = await services.run.takeMark(paneId, run.nonce);
    if (early) return done(early.exitStatus, early.endLine);
  }

  let marked: RunMark | null = null;
  let waited = false;
  const waiting = (early?.waiting ?? services.run.waitMark(paneId, run.nonce, timeoutMs)).then((m) => ((marked = m), (waited = true)));
  let promptLooks = 0;
  for (;;) {
    const tick = sleep(Math.max(0, Math.min(POLL_MS, deadline - Date.now())));
    await (waited ? tick : Promise.race([waiting, tick]));
    const mark = marked as RunMark | null;
    if (mark !== null) return done(mark.exitStatus, mark.endLine);
    const live = await services.delivery.readIdentity(paneId);
    if (!live || !samePane(live, run.identity)) return lost();
    const cursorLine = live.historySize + live.cursorY;
    const tree = await readPaneProcessTree(live.panePid, live.currentCommand);
    if (tree.source === 'proc' && run.shellPid !== null) {
      if (!tree.processes.some((p) => p.pid === run.shellPid)) return lost(live.historySize, cursorLine);
      const shellIdle = tree.foregroundGroup === run.shellPid && !tree.processes.some((p) => p.ppid === run.shellPid);
      promptLooks = shellIdle && (await services.run.lineEditing(paneId)) === true ? promptLooks + 1 : 0;
      if (promptLooks >= PROMPT_LOOKS) {
        const mark = await services.run.takeMark(paneId, run.nonce);
        if (mark) return done(mark.exitStatus, mark.endLine);
        return { state: 'NO_STATUS', exitStatus: null, endLine: cursorLine, historySize: live.historySize, cursorX: live.cursorX };
      }
    }
    if (Date.now() >= deadline) {
      // The waiter ends at about the same time; a mark it took meanwhile is this run's end
      // (not to be lost between this answer and the next call).
      await waiting;
      const late = marked as RunMark | null;
      if (late !== null) return done(late.exitStatus, late.endLine);
      return { state: 'RUNNING', exitStatus: null, endLine: cursorLine + 1, historySize: live.historySize, cursorX: live.cursorX };
    }
  }
}

/** The redacted lines between the typed line and `endLine`, cut to the last ones. */
async function outputOf(caller: AttemptCaller, run: PendingRun, ending: Ending) {
  if (ending.state === 'LOST' || ending.endLine - 1 < run.startLine) return { text: '', lines: 0, truncated: false, redactions: 0 };
  // Relative to the screen now (negative: history); -J joins wrapped rows.
  const captured = await caller.deps.tmux
    .capturePane(run.identity.paneId, { start: run.startLine - ending.historySize, end: ending.endLine - 1 - ending.historySize })
    .catch(() => '');
  const clean = cleanPaneText(captured, true);
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

async function answer(caller: AttemptCaller, run: PendingRun, timeoutMs: number, token: string | null, early?: EarlyWait): Promise<RunResult> {
  const ending = await awaitEnding(caller, run, timeoutMs, token !== null, early);
  const output = await outputOf(caller, run, ending);
  recordRead(caller, 'terminal_run', { session: run.sessionName, sessionId: run.identity.sessionId, paneId: run.identity.paneId, lineCount: output.lines });
  const tokens = caller.deps.live.runTokens;
  let resume: string | null = null;
  if (ending.state === 'RUNNING') resume = token !== null ? (tokens.renew(token)?.token ?? null) : tokens.issue(run).token;
  else if (token !== null) tokens.retire(token);
  return {
    state: ending.state,
    session: run.sessionName,
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

export async function runCommand(caller: AttemptCaller, args: { target: TargetRef; command: string; timeoutS?: number | undefined }): Promise<RunResult> {
  const services = caller.deps.input;
  const nonce = randomBytes(16).toString('hex');
  const timeoutMs = timeoutMsOf(args.timeoutS);
  let early: EarlyWait | undefined;
  const result = await runInputAttempt<PendingRun>(
    caller,
    { tool: 'terminal_run', target: args.target, request: { kind: 'command', text: args.command }, dryRun: false },
    async ({ target, live, decision, auditId }) => {
      if (decision.action !== 'run_command') throw new AppError('INTERNAL', 'unexpected input decision');
      const line = runWrapper(decision.text, nonce, target.identity.paneId, await services.run.socketPath(), decision.shell);
      const run: PendingRun = {
        role: caller.role,
        client: caller.actor,
        sessionName: target.sessionName,
        identity: target.identity,
        shellPid: decision.shellPid,
        nonce,
        startLine: live.historySize + live.cursorY,
        startedAt: Date.now(),
        auditId,
      };
      // The wait starts before typing (tmux keeps a signal sent before anyone waits, so
      // none is missed either way); it is cancelled if nothing was typed.
      const cancel = new AbortController();
      const waiting = services.run.waitMark(target.identity.paneId, nonce, timeoutMs, cancel.signal).catch(() => null);
      const deadline = Date.now() + timeoutMs;
      let typed;
      try {
        typed = await services.delivery.pasteLine(target.identity.paneId, line, authorizedForeground(live));
      } catch (err) {
        cancel.abort();
        throw err;
      }
      if (!typed.ok) {
        cancel.abort();
        return { ...classifyDelivery(typed), value: run };
      }
      early = { waiting, deadline };
      return { decision: 'SENT', errorCode: null, value: run, receiptJson: JSON.stringify({ run: { shell: decision.shell, channel: runChannel(nonce) } }) };
    },
  );
  if (result.kind === 'blocked') throw result.error;
  if (result.kind !== 'acted') throw new AppError('INTERNAL', 'unexpected input attempt result');
  const outcome = result.outcome;
  if (outcome.decision === 'FAILED') {
    throw outcome.errorCode === 'IDENTITY_CHANGED'
      ? new AppError('IDENTITY_CHANGED', "the pane's foreground program changed between the check and typing; nothing was typed")
      : new AppError('TMUX_UNAVAILABLE', 'tmux refused the input; nothing was typed');
  }
  if (outcome.decision === 'DELIVERY_UNKNOWN') throw new AppError('TMUX_UNAVAILABLE', 'tmux stopped answering while typing: the command may or may not have been typed (audited as DELIVERY_UNKNOWN)');
  return answer(caller, outcome.value, timeoutMs, null, early);
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
  const live = await caller.deps.input.delivery.readIdentity(run.identity.paneId);
  if (live && samePane(live, run.identity)) {
    const access = caller.deps.access;
    if (!access.canRead(live.sessionName, access.grantOf(live.sessionName, run.identity))) {
      caller.deps.live.runTokens.retire(args.token);
      throw new AppError('SESSION_NOT_ALLOWED', 'access to this session is denied');
    }
  }
  return answer(caller, run, timeoutMsOf(args.timeoutS), args.token);
}
