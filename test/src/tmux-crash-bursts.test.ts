// The session bursts that crashed tmux 3.3a while the broker recorded transcripts (40 sessions created back to back, create/rename/kill rounds landing while clients identify, a SIGKILLed broker recording 20 sessions) leave the server running with recording on, every session recorded, and nothing of a killed broker behind. A few trials each here; `node bench/dist/crash-bursts.js --runs 50` repeats them (docs/transcripts.md has the table).
import { describe, expect, it } from 'vitest';
import { BURSTS, runBurst } from './helpers/crash-bursts.js';

/** Trials per burst; TMCP_CRASH_BURST_RUNS raises it for a longer local run. */
const RUNS = Number(process.env.TMCP_CRASH_BURST_RUNS ?? '3');

describe('session bursts while the broker records', () => {
  for (const burst of BURSTS) {
    it(
      `${burst}: the user's tmux server survives ${RUNS} trials and every session is recorded`,
      async () => {
        for (let run = 0; run < RUNS; run += 1) {
          const outcome = await runBurst(burst);
          expect(outcome, `trial ${run + 1}`).toMatchObject({ crashed: false, detail: '', leftClients: 0, leftovers: '' });
          expect(outcome.recorded, `trial ${run + 1}: sessions recorded`).toBe(outcome.expected);
        }
      },
      RUNS * 240_000,
    );
  }
});
