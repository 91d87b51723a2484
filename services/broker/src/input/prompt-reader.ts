/**
 * What would read the secret entry's answer: the pane's foreground program, its parent
 * chain and the user it runs as, from the same process-tree read as terminal_input_context
 * and the input attempt, and the verdict of the one rule the input decision applies
 * (policy/credential-reader.ts). The dashboard shows it next to the entry, so the operator
 * sees which program takes the password before typing it. A read of the pane (the read
 * gate, audited), never of its content.
 */
import { AppError, type ProgramFacts, type PromptReaderOutput } from '@terminal-mcp/contract';
import type { TargetRef } from '../access/target.js';
import { recordRead } from '../audit/record-read.js';
import { userNameOf } from '../effects/proc/user-names.js';
import { qualify } from '../nodes/node-names.js';
import { DEFAULT_CREDENTIAL_PROGRAMS, judgeCredentialReader, remoteSessionReader, type ProgramFacts as JudgedProgram } from '../policy/credential-reader.js';
import { readTargetProcesses } from './attempt.js';
import type { InputCaller } from './input-deps.js';
import { answerOn, routeInput } from './node-route.js';

const TOOL = 'dashboard_prompt_reader';

type ReaderFacts = Omit<PromptReaderOutput, 'password_needed' | 'confirm_required'>;

export function promptReaderOf(ctx: InputCaller, ref: TargetRef): Promise<ReaderFacts> {
  const route = routeInput(ctx, ref);
  // Resolved once: the answer is named by the same Host the call went to.
  return answerOn(route.host, () => promptReader(route.caller, route.target, route.node));
}

async function promptReader(ctx: InputCaller, ref: TargetRef, node: string | undefined): Promise<ReaderFacts> {
  const { deps } = ctx;
  let target;
  try {
    target = await deps.access.readableRef(ref);
  } catch (err) {
    recordRead(ctx, TOOL, { session: ref.session === undefined ? null : qualify(node, ref.session), errorCode: err instanceof AppError ? err.code : 'INTERNAL' });
    throw err;
  }
  const processes = await readTargetProcesses(target, deps.input);
  // The same facts the input decision reads for ssh (its own prompt, or a connected session).
  const remote = remoteSessionReader(processes);
  const terminal = remote !== null && deps.input.terminalRead !== undefined ? await deps.input.terminalRead(target.identity.panePid, remote.pid) : undefined;
  const verdict = judgeCredentialReader(processes, deps.config.human_input?.credential_programs ?? DEFAULT_CREDENTIAL_PROGRAMS, terminal);
  recordRead(ctx, TOOL, { session: qualify(node, target.sessionName), sessionId: qualify(node, target.identity.sessionId), paneId: target.identity.paneId });
  // A node's user ids are the node's: this host's /etc/passwd does not name them.
  const shown = (p: JudgedProgram): ProgramFacts => ({ pid: p.pid, exe_path: p.exePath, name: p.name, uid: p.uid, user: node === undefined ? userNameOf(p.uid) : null });
  return {
    session: target.sessionName,
    pane_id: target.identity.paneId,
    admitted: verdict.admitted,
    reason: verdict.reason,
    readers: verdict.readers.map(shown),
    chain: verdict.chain.map(shown),
  };
}
