/**
 * `node bench/dist/crash-bursts.js [--runs 50] [--only create40,churn,sigkill] [--json FILE] [--max-load 8]`:
 * the session bursts that crashed tmux 3.3a while the broker recorded transcripts, each
 * repeated `--runs` times on a fresh private tmux server and broker (test/src/helpers/
 * crash-bursts.ts says what each does). Prints one line per trial and a table of crashes
 * per burst. Trials run one after another; they are CPU heavy, so on a shared machine run
 * it under `nice -n 10`; before each trial it waits until the 1-minute load average is
 * below `--max-load` (a trial whose broker cannot even start in time measures nothing).
 * Build first (`npx tsc -b`).
 *
 * The crash table in docs/transcripts.md comes from this script, run against the
 * previous design (one control-mode watcher per recorded session) and the current one.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { BURSTS, runBurst, type BurstName, type BurstOutcome } from '@terminal-mcp/test';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const runs = Number(arg('--runs') ?? '50');
const only = (arg('--only')?.split(',') ?? [...BURSTS]) as BurstName[];
const jsonPath = arg('--json');
const maxLoad = Number(arg('--max-load') ?? '8');
for (const b of only) if (!BURSTS.includes(b)) throw new Error(`unknown burst ${b}; one of ${BURSTS.join(', ')}`);
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');

const outcomes: BurstOutcome[] = [];
for (let run = 1; run <= runs; run += 1) {
  for (const burst of only) {
    while (loadavg()[0]! > maxLoad) await new Promise((resolve) => setTimeout(resolve, 10_000));
    let outcome: BurstOutcome;
    try {
      outcome = await runBurst(burst);
    } catch (err) {
      outcome = { burst, crashed: false, detail: `trial failed to run: ${(err as Error).message.split('\n')[0]}`, recorded: 0, expected: 0, leftClients: 0, leftovers: '', ms: 0 };
    }
    outcomes.push(outcome);
    const o = outcome;
    process.stdout.write(
      `${burst.padEnd(9)} run ${String(run).padStart(3)}/${runs}  ${o.crashed ? 'CRASHED' : 'ok     '}  recorded ${o.recorded}/${o.expected}${burst === 'sigkill' ? `  clients left ${o.leftClients}${o.leftovers ? `, ${o.leftovers}` : ''}` : ''}  ${(o.ms / 1000).toFixed(1)} s${o.detail ? `  (${o.detail})` : ''}\n`,
    );
    if (jsonPath) writeFileSync(jsonPath, JSON.stringify(outcomes, null, 1));
  }
}

process.stdout.write('\nburst      trials  crashes  not fully recorded  setup failures\n');
for (const burst of only) {
  const mine = outcomes.filter((o) => o.burst === burst);
  const crashes = mine.filter((o) => o.crashed).length;
  const partial = mine.filter((o) => !o.crashed && o.detail === '' && o.recorded < o.expected).length;
  const failed = mine.filter((o) => !o.crashed && o.detail !== '').length;
  process.stdout.write(`${burst.padEnd(11)}${String(mine.length).padStart(6)}  ${String(crashes).padStart(7)}  ${String(partial).padStart(18)}  ${String(failed).padStart(14)}\n`);
}
