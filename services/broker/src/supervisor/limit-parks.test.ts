// Guards: an agent that prints a usage limit is parked (surviving a broker restart), resumed exactly once at the reset through the guarded, audited send (review mode applies), parked again when it prints the limit again, and never typed to once the pane changed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupervisorEvent } from '@terminal-mcp/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitStandInScript, resetLabel } from '../../../../test/src/helpers/limit-stand-in.js';
import { startTmuxServer, type TmuxTestServer } from '../../../../test/src/helpers/tmux-server.js';
import { waitFor } from '../../../../test/src/helpers/wait-for.js';
import { noticeOfSupervisorEvent } from '../attention/supervisor-notices.js';
import { configSchema } from '../config/schema.js';
import { createTmuxAdapter, type ControlModeTmuxAdapter } from '../effects/tmux/adapter.js';
import type { ParkRow } from '../effects/store/supervisor-store.js';
import type { BrokerDeps } from '../rpc/deps.js';
import { testDeps } from '../testing/deps.testkit.js';
import { DEFAULT_DONE_MARKER } from './evidence.js';
import type { SupervisorEngine } from './engine.js';
import { LIMIT_RESUME_ACTOR, LIMIT_RESUME_TOOL, limitResumeSend } from './limit-send.js';
import { createSupervisor } from './wiring.js';

const root = mkdtempSync(join(tmpdir(), 'tmcp-limits-'));
const STAND_IN = join(root, 'stand-in.py');

/** A stand-in for an agent CLI at its limit: prints Claude Code's message with each reset
 * label in turn, waiting for a line of input after each, and records every line it reads. */
writeFileSync(STAND_IN, limitStandInScript('working again'));

const CONFIG_INPUT = {
  permissions: { terminal_read: true, terminal_input: true },
  allowed_session_patterns: ['agent-*'],
  input_policy: { allowed_session_patterns: ['agent-*'] },
  supervisor: {
    max_iterations: 1000,
    resume_after_limit: { enabled: true, session_patterns: ['agent-limit*'], extra_delay_seconds: 0 },
  },
};
const CONFIG = configSchema.parse(CONFIG_INPUT);

let tmux: TmuxTestServer;
let adapter: ControlModeTmuxAdapter;
let deps: BrokerDeps;
/** The supervisor's clock: the real one plus what the test moved it by. */
let offset = 0;
const clock = () => Date.now() + offset;
const events: SupervisorEvent[] = [];

/** A supervisor engine as start-broker.ts builds it, on the test's clock and without the random delay. */
function engine(): SupervisorEngine {
  return createSupervisor({
    config: CONFIG,
    tmux: adapter,
    stores: deps.stores,
    log: pino({ level: 'silent' }),
    reader: deps.reader,
    limitSend: () => limitResumeSend(deps),
    now: clock,
    random: () => 0,
    onEvent: (e) => events.push(e),
  });
}

beforeAll(async () => {
  tmux = await startTmuxServer();
  adapter = createTmuxAdapter({ socketName: tmux.socketName, configFile: '/dev/null' });
  expect(await adapter.waitUntilConnected(10_000)).toBe(true);
  deps = testDeps({ config: CONFIG, tmux: adapter, stateDir: join(root, 'state'), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
});

afterAll(async () => {
  await adapter?.close();
  deps?.stores.close();
  await tmux?.kill();
  rmSync(root, { recursive: true, force: true });
});


/** The first whole minute at least `ms` after the supervisor's now. */
const minuteAfter = (ms: number) => Math.ceil((clock() + ms) / 60_000) * 60_000;

function watchOf(name: string) {
  return deps.stores.supervisor.upsertWatch({ key: `session:${name}`, kind: 'session', target: name, doneMarker: DEFAULT_DONE_MARKER, source: 'manual', by: 'test', now: clock() });
}

async function agent(name: string, resets: readonly number[]): Promise<string> {
  const log = join(root, `${name}.log`);
  writeFileSync(log, '');
  await tmux.newSession(name, `python3 ${STAND_IN} ${resets.map(resetLabel).join(' ')} ${log}`, { width: 120, height: 20 });
  await waitFor('the limit message on the screen', async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${name}:`])).includes('/upgrade'), 30_000, 100);
  return log;
}

const parksOf = (watchId: number): ParkRow[] => deps.stores.supervisor.listParks({ limit: 100 }).filter((p) => p.watch_id === watchId).reverse();
const resumesTo = (name: string) =>
  deps.stores.db('audit').prepare<[string, string], { actor: string; decision: string; text_length: number }>('SELECT actor, decision, text_length FROM input_audit WHERE tool = ? AND session_name = ?').all(LIMIT_RESUME_TOOL, name);

describe('resume_after_limit on a real tmux pane', () => {
  it('parks at the limit, survives a restart, types continue once at the reset, and parks again on the next limit', async () => {
    const first = minuteAfter(120_000);
    const second = first + 5 * 3600_000;
    const log = await agent('agent-limit', [first, second]);
    const watch = watchOf('agent-limit');
    let supervisor = engine();

    await waitFor('the park', async () => {
      await supervisor.runOnce();
      return parksOf(watch.id).length === 1;
    });
    const [park] = parksOf(watch.id);
    expect(park).toMatchObject({ state: 'parked', resets_at: first, resume_at: first, limit_kind: 'session', program: 'claude code' });
    const reached = events.find((e) => e.event_type === 'limit_reached' && e.target === 'agent-limit');
    expect(reached?.metadata).toMatchObject({ resets_at: new Date(first).toISOString(), resume: 'scheduled' });
    expect(noticeOfSupervisorEvent(reached!)).toMatchObject({ kind: 'supervisor_event', session: 'agent-limit' });
    // terminal_status shows the reset too.
    const status = await deps.reader.statusOf(await deps.reader.resolve({ session: 'agent-limit' }));
    expect(status).toMatchObject({ status: 'WAITING_INPUT', limit_resets_at: new Date(first).toISOString() });
    expect(status.reason).toBe(`usage limit: claude code session limit, resets ${new Date(first).toISOString()} (UTC, from the message)`);

    // Before the reset nothing is typed, however often the supervisor looks.
    await supervisor.runOnce();
    expect(parksOf(watch.id)[0]?.state).toBe('parked');
    expect(resumesTo('agent-limit')).toEqual([]);

    // A broker restart: a new engine over the same supervisor.db still holds the park.
    supervisor.stop();
    supervisor = engine();

    offset += first - clock() + 1_000;
    await supervisor.runOnce();
    expect(parksOf(watch.id)[0]).toMatchObject({ state: 'resumed' });
    await waitFor('the stand-in read the resume text', () => readFileSync(log, 'utf8') === 'continue\n', 30_000, 100);
    // Audited once, as the supervisor, through the input tools' send path.
    expect(resumesTo('agent-limit')).toEqual([{ actor: LIMIT_RESUME_ACTOR, decision: 'SENT', text_length: 'continue'.length }]);
    const resumed = events.find((e) => e.event_type === 'limit_resumed' && e.target === 'agent-limit');
    expect(resumed?.metadata).toMatchObject({ park_id: park!.id, result: 'SENT', by: 'schedule' });
    expect(noticeOfSupervisorEvent(resumed!)).not.toBeNull();

    // Still limited: the agent prints the message again, and is parked again with the new time.
    await waitFor('the second park', async () => {
      await supervisor.runOnce();
      return parksOf(watch.id).length === 2;
    });
    expect(parksOf(watch.id)[1]).toMatchObject({ state: 'parked', resets_at: second });
    // No loop: more passes type nothing more before the new reset.
    await supervisor.runOnce();
    await supervisor.runOnce();
    expect(readFileSync(log, 'utf8')).toBe('continue\n');
    expect(resumesTo('agent-limit')).toHaveLength(1);
    supervisor.stop();
  });

  it('never types once a person typed into the pane, and cancels the park', async () => {
    const reset = minuteAfter(120_000);
    const log = await agent('agent-limit-typed', [reset]);
    const watch = watchOf('agent-limit-typed');
    const supervisor = engine();
    await waitFor('the park', async () => {
      await supervisor.runOnce();
      return parksOf(watch.id).length === 1;
    });
    // A person starts an answer of their own (no Enter yet).
    await tmux.tmux(['send-keys', '-t', '=agent-limit-typed:', '-l', 'let me check first']);
    await waitFor('the park cancelled', async () => {
      await supervisor.runOnce();
      return parksOf(watch.id)[0]?.state === 'cancelled';
    });
    offset += Math.max(0, reset - clock()) + 1_000;
    await supervisor.runOnce();
    expect(resumesTo('agent-limit-typed')).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe('');
    expect(events.some((e) => e.event_type === 'limit_cancelled' && e.target === 'agent-limit-typed')).toBe(true);
    supervisor.stop();
  });

  it('records the limit but parks nothing where resume_after_limit does not apply', async () => {
    await agent('agent-other', [minuteAfter(120_000)]);
    const watch = watchOf('agent-other');
    const supervisor = engine();
    await waitFor('the limit_reached event', async () => {
      await supervisor.runOnce();
      return events.some((e) => e.event_type === 'limit_reached' && e.target === 'agent-other');
    });
    expect(events.find((e) => e.event_type === 'limit_reached' && e.target === 'agent-other')?.metadata).toMatchObject({ resume: 'off' });
    expect(parksOf(watch.id)).toEqual([]);
    supervisor.stop();
  });
});

describe("the pane's TZ", () => {
  it('reads a reset without a zone in the TZ the pane was started with', async () => {
    await tmux.newSession('agent-tz', `env TZ=Asia/Tokyo python3 -c 'print("5-hour limit reached \\u2219 resets 3pm"); input()'`, { width: 120, height: 20 });
    await waitFor('the limit message', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-tz:'])).includes('resets 3pm'), 30_000, 100);
    const before = Date.now();
    const status = await deps.reader.statusOf(await deps.reader.resolve({ session: 'agent-tz' }));
    // 3pm in Tokyo (UTC+9, no DST) is 06:00 UTC: the next one after now.
    const sixUtc = new Date(before);
    sixUtc.setUTCHours(6, 0, 0, 0);
    const expected = sixUtc.getTime() > before ? sixUtc.getTime() : sixUtc.getTime() + 86_400_000;
    expect(status.limit_resets_at).toBe(new Date(expected).toISOString());
    expect(status.reason).toContain("(Asia/Tokyo, the pane's zone)");
  });
});

describe('review mode', () => {
  it('queues the resume for a person under input_policy.review always: nothing is typed at the reset', async () => {
    const reviewed = configSchema.parse({ ...CONFIG_INPUT, input_policy: { allowed_session_patterns: ['agent-*'], review: 'always' } });
    const reviewDeps = testDeps({ config: reviewed, tmux: adapter, stateDir: join(root, 'state-review'), info: { version: 'test', startedAt: new Date(), tmuxSocket: tmux.socketName } });
    try {
      const reset = minuteAfter(120_000);
      const log = await agent('agent-limit-review', [reset]);
      const watch = reviewDeps.stores.supervisor.upsertWatch({ key: 'session:agent-limit-review', kind: 'session', target: 'agent-limit-review', doneMarker: DEFAULT_DONE_MARKER, source: 'manual', by: 'test', now: clock() });
      const supervisor = createSupervisor({ config: reviewed, tmux: adapter, stores: reviewDeps.stores, log: pino({ level: 'silent' }), reader: reviewDeps.reader, limitSend: () => limitResumeSend(reviewDeps), now: clock, random: () => 0 });
      await waitFor('the park', async () => {
        await supervisor.runOnce();
        return reviewDeps.stores.supervisor.listParks({ limit: 10 }).some((p) => p.watch_id === watch.id);
      });
      offset += Math.max(0, reset - clock()) + 1_000;
      await supervisor.runOnce();
      const [park] = reviewDeps.stores.supervisor.listParks({ limit: 10 });
      expect(park).toMatchObject({ state: 'resumed' });
      expect(park?.outcome).toMatch(/^the resume text waits for review \(approval \d+, input audit \d+\)$/);
      const rows = reviewDeps.stores.db('audit').prepare<[string], { decision: string }>('SELECT decision FROM input_audit WHERE tool = ?').all(LIMIT_RESUME_TOOL);
      expect(rows).toEqual([{ decision: 'QUEUED' }]);
      expect(readFileSync(log, 'utf8')).toBe('');
      supervisor.stop();
    } finally {
      reviewDeps.stores.close();
    }
  });
});
