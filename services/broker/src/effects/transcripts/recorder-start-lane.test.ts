// Recordings started together (a broker's start, a reconcile) never queue their pipe-panes ahead of a caller's command on the one control client: a caller's command is answered while most of them are still to come, and all of them still start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, configSchema } from '../../config/schema.js';
import { startLiveTestBroker, type LiveTestBroker } from '../../testing/live-broker.testkit.js';
import { waitFor } from '../../../../../test/src/helpers/wait-for.js';

const SESSIONS = 60;
const config = configSchema.parse({ ...DEFAULT_CONFIG, allowed_session_patterns: ['lane-*'], transcripts: { enabled: true } });
/** Every pane's pipe flag, as a caller's command on the broker's control client. */
const PIPED = "list-panes -a -F '#{session_name} #{pane_pipe}'";

let stateDir: string;
let broker: LiveTestBroker;

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'tmcp-lane-'));
  broker = await startLiveTestBroker({ config, stateDir, graceMs: 100 });
  // A screenful of history each, so every opening also captures some text.
  for (let i = 0; i < SESSIONS; i++) await broker.server.newSession(`lane-${i}`, `sh -c 'seq 1 200; exec cat'`);
}, 300_000);

afterAll(async () => {
  await broker?.deps.transcripts.close();
  await broker?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

/** How many of the lane sessions' panes are piped, asked the way a caller's command goes:
 * on the adapter's control client (inputControl writes at once, like every caller). */
async function pipedNow(): Promise<number> {
  const replies = await broker.adapter.inputControl([{ command: PIPED }]);
  if (replies === null) throw new Error('the control client is not connected');
  return replies[0]!.lines.filter((l) => /^lane-\d+ 1$/.test(l)).length;
}

describe('recordings started together', { timeout: 300_000 }, () => {
  it('let a caller in while most of them are still to open, and all of them open', async () => {
    expect(await pipedNow()).toBe(0);
    broker.deps.transcripts.sync(await broker.deps.tmux.listSessions(), broker.deps.access);
    // Readiness says how many are still to open (none has opened yet: the lane's first
    // turn waits for the idle client).
    expect(broker.deps.transcripts.opening()).toBe(SESSIONS);
    // The first answer that shows any pipe open: a caller waits behind at most one opening
    // at a time, so tmux answered it while nearly all were still unwritten. (All of them
    // queued at once, as before, were written ahead of it: it saw them all, or nearly.)
    const firstSeen = await waitFor('a first pipe', async () => {
      const n = await pipedNow();
      return n > 0 && n;
    }, 120_000, 1);
    expect(firstSeen).toBeLessThanOrEqual(SESSIONS / 2);
    await waitFor('every session recording', async () => (await pipedNow()) === SESSIONS, 120_000, 100);
    expect(broker.deps.transcripts.recording().length).toBe(SESSIONS);
    expect(broker.deps.transcripts.opening()).toBe(0);
  });
});
