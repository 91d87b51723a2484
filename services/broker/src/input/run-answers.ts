/**
 * terminal_run's answers by audit id, for a retry with the run's idempotency key
 * (replay.ts): the retry waits for the first call's answer (or takes it, if it came) and
 * types nothing. Kept in memory, the last MAX_ANSWERS runs with a key: after a restart a
 * replay of a typed run answers DELIVERY_UNKNOWN (typed, outcome no longer known).
 */
import type { RunResult } from '@terminal-mcp/contract';

const MAX_ANSWERS = 256;

export interface RunAnswers {
  remember(auditId: number, answer: Promise<RunResult>): void;
  get(auditId: number): Promise<RunResult> | undefined;
}

export function createRunAnswers(): RunAnswers {
  const answers = new Map<number, Promise<RunResult>>();
  return {
    remember(auditId, answer) {
      // A failed answer is read by the replay that awaits it; never an unhandled rejection.
      answer.catch(() => undefined);
      answers.set(auditId, answer);
      while (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value as number);
    },
    get: (auditId) => answers.get(auditId),
  };
}
