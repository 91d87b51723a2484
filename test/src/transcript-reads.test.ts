// Output cursors and transcripts end to end with the default config (recording on; real broker process, private tmux server, MCP SDK clients over stdio and HTTP): two readers with their own cursors each get every line once while a pane prints, a killed session stays readable as DEAD after a broker restart (also what it printed before the broker started), and its export parses as asciicast v2.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayLogger, ERROR_META_KEY, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { readAnswerOf, textOf } from './helpers/answer-text.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';
import { APPS_HOST_OPTIONS } from './helpers/apps-host.js';

const STDIO_BIN = repoPath('services/gateway/dist/bin/stdio.js');
const TICKS = 40;

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let http: RunningGatewayHttp;
const clients: Client[] = [];

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<Result>;
const codeOf = (r: Result) => (r._meta?.[ERROR_META_KEY] as { error_code?: string; hint?: string } | undefined)?.error_code;
const hintOf = (r: Result) => (r._meta?.[ERROR_META_KEY] as { hint?: string } | undefined)?.hint ?? '';
/** The answer's fields: structuredContent where the tool returns it (terminal_tail), else
 * read from its text (terminal_capture, terminal_read_since: docs/tools.md). */
const ok = (r: Result): Record<string, unknown> => {
  if (r.isError) throw new Error(`tool failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent ?? { ...readAnswerOf(r) };
};
/** terminal_export_transcript's text: a head line, then the .cast. */
const castOf = (r: Result) => {
  const text = textOf(ok(r) && r);
  return { truncated: text.split('\n')[0]!.includes('Truncated'), cast: text.slice(text.indexOf('\n') + 1) };
};

function stdioClient(): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(broker.env)) if (v !== undefined && k !== 'TMUX' && k !== 'TMUX_PANE') env[k] = v;
  const client = new Client({ name: 'transcripts-stdio', version: '0.0.0' }, APPS_HOST_OPTIONS);
  clients.push(client);
  return client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_BIN], env: { ...env, TERMINAL_MCP_LOG_LEVEL: 'warn' }, stderr: 'pipe' })).then(() => client);
}

async function httpClient(): Promise<Client> {
  const client = new Client({ name: 'transcripts-http', version: '0.0.0' }, APPS_HOST_OPTIONS);
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
  return client;
}

/** Waits until the broker records `name`: its pane is piped (tmux's pipe-pane, no client
 * attached) and the transcript exists. */
async function watched(name: string): Promise<void> {
  await waitFor(`the broker's recording of ${name}`, async () => (await tmux.tmux(['display-message', '-p', '-t', `=${name}:`, '#{pane_pipe}'])) === '1');
}

/** Transcripts are not mentioned: recording is on by default. */
const CONFIG = { allowed_session_patterns: ['agent-*'], log_level: 'warn' };

beforeAll(async () => {
  tmux = await startTmuxServer();
  // Printed before any broker runs: recording starts with a snapshot of it.
  await tmux.newSession('agent-early', `sh -c 'echo early-bird-1; echo early-bird-2 ghp_abcdefghijklmnopqrstuvwxyz0123456789AB; exec sleep 3600'`);
  await waitFor('the early session printed', async () => (await tmux.tmux(['capture-pane', '-p', '-t', '=agent-early:'])).includes('early-bird-2'));
  broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: CONFIG });
  http = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), allowOpen: true });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await http?.close();
  await broker?.stop();
  await tmux?.kill();
});

describe('output cursors', () => {
  it('gives two readers (stdio and HTTP) every line exactly once while the pane prints', async () => {
    const s = await tmux.newSession('agent-ticker', `sh -c 'read go; i=0; while [ $i -lt ${TICKS} ]; do i=$((i+1)); echo tick-$i; sleep 0.1; done; printf "Proceed? "; read x; exec sleep 3600'`);
    await watched('agent-ticker');
    const [a, b] = [await stdioClient(), await httpClient()];
    let cursorA = ok(await call(a, 'terminal_tail', { session: 'agent-ticker', lines: 5 })).cursor as string;
    let cursorB = ok(await call(b, 'terminal_capture', { session: 'agent-ticker' })).cursor as string;
    expect(typeof cursorA).toBe('string');
    expect(typeof cursorB).toBe('string');
    await tmux.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    const seen: Record<'a' | 'b', string[]> = { a: [], b: [] };
    let pendingA = '';
    await waitFor('both readers saw the last tick', async () => {
      const ra = ok(await call(a, 'terminal_read_since', { session: 'agent-ticker', cursor: cursorA }));
      seen.a.push(...(ra.line_count ? (ra.text as string).split('\n') : []));
      cursorA = ra.cursor as string;
      pendingA = (ra.pending as string | undefined) ?? '';
      const rb = ok(await call(b, 'terminal_read_since', { session: 'agent-ticker', cursor: cursorB, max_lines: 2000 }));
      seen.b.push(...(rb.line_count ? (rb.text as string).split('\n') : []));
      cursorB = rb.cursor as string;
      expect(ra.dropped).toBe(false);
      expect(rb.dropped).toBe(false);
      return seen.a.includes(`tick-${TICKS}`) && seen.b.includes(`tick-${TICKS}`) && pendingA.includes('Proceed?');
    });
    const expected = Array.from({ length: TICKS }, (_, i) => `tick-${i + 1}`);
    expect(seen.a.filter((l) => l.startsWith('tick-'))).toEqual(expected);
    expect(seen.b.filter((l) => l.startsWith('tick-'))).toEqual(expected);
    // The prompt is pending and the cursor stays before it: asked again, it is still pending.
    const again = ok(await call(a, 'terminal_read_since', { session: 'agent-ticker', cursor: cursorA }));
    expect(again).toMatchObject({ line_count: 0, pending: 'Proceed? ', cursor: cursorA });
  });

  it('refuses a garbled cursor and another session\'s cursor with INVALID_ARGUMENT', async () => {
    await tmux.newSession('agent-other', 'sleep 3600');
    await watched('agent-other');
    const c = await stdioClient();
    const other = ok(await call(c, 'terminal_tail', { session: 'agent-other' })).cursor as string;
    // terminal_batch_inspect gives each session's row its cursor too.
    const batch = textOf(await call(c, 'terminal_batch_inspect', { sessions: ['agent-other'] }));
    expect(batch.split('\n')[0]).toMatch(new RegExp(`^== "agent-other": [A-Z_]+ .*cursor=${other} `));
    const garbled = await call(c, 'terminal_read_since', { session: 'agent-ticker', cursor: 'bm90IGEgY3Vyc29y' });
    expect(codeOf(garbled)).toBe('INVALID_ARGUMENT');
    expect(hintOf(garbled)).toContain('terminal_tail');
    expect(codeOf(await call(c, 'terminal_read_since', { session: 'agent-ticker', cursor: other }))).toBe('INVALID_ARGUMENT');
    const forged = JSON.parse(Buffer.from(other, 'base64url').toString('utf8')) as Record<string, unknown>;
    const moved = Buffer.from(JSON.stringify({ ...forged, o: 3 })).toString('base64url');
    expect(codeOf(await call(c, 'terminal_read_since', { session: 'agent-other', cursor: moved }))).toBe('INVALID_ARGUMENT');
  });
});

// Broker restarts and MCP clients over stdio: minutes on a loaded machine, not seconds.
describe('DEAD sessions', { timeout: 180_000 }, () => {
  it('keeps a killed session readable after a broker restart, and exports it as asciicast v2', async () => {
    const s = await tmux.newSession('agent-doomed', `sh -c 'read go; echo doomed-first; echo doomed-second AKIAQ7ZK2M5RWX3TLNB4; exec sleep 3600'`);
    await watched('agent-doomed');
    await tmux.newSession('private-unrecorded', `sh -c 'read go; echo private-mark-9a1; exec sleep 3600'`);
    const c = await stdioClient();
    const cursor = ok(await call(c, 'terminal_tail', { session: 'agent-doomed' })).cursor as string;
    await tmux.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await tmux.tmux(['send-keys', '-t', 'private-unrecorded:', 'Enter']);
    await waitFor('doomed lines recorded', async () => {
      const r = ok(await call(c, 'terminal_read_since', { session: 'agent-doomed', cursor }));
      return (r.text as string).includes('doomed-second');
    });
    await tmux.tmux(['kill-session', '-t', s.sessionId]);

    // Without include_dead: not found, with a hint to pass it.
    const refused = await waitFor('session gone', async () => {
      const r = await call(c, 'terminal_tail', { session: 'agent-doomed' });
      return codeOf(r) === 'SESSION_NOT_FOUND' && r;
    });
    expect(hintOf(refused)).toContain('include_dead');

    broker = await broker.restart();
    const after = await stdioClient();
    const listed = textOf(await call(after, 'terminal_list_sessions', { include_dead: true }));
    expect(listed.slice(listed.indexOf('gone (registry):'))).toContain('\n- "agent-doomed" ');

    const tail = ok(await call(after, 'terminal_tail', { session: 'agent-doomed', include_dead: true }));
    expect(tail).toMatchObject({ dead: true, session: 'agent-doomed' });
    expect(tail.text).toContain('doomed-first');
    expect(tail.text).toContain('doomed-second [REDACTED:aws_access_key_id]');
    expect(tail.redactions).toBe(1);
    const capture = ok(await call(after, 'terminal_capture', { session: 'agent-doomed', include_dead: true }));
    expect(capture.text).toContain('doomed-first');
    const since = ok(await call(after, 'terminal_read_since', { session: 'agent-doomed', cursor, include_dead: true }));
    expect((since.text as string).split('\n').filter((l) => l.startsWith('doomed-'))).toEqual(['doomed-first', 'doomed-second [REDACTED:aws_access_key_id]']);
    expect(since.dead).toBe(true);
    expect(codeOf(await call(after, 'terminal_read_since', { session: 'agent-doomed', cursor }))).toBe('SESSION_NOT_FOUND');

    const exported = castOf(await call(after, 'terminal_export_transcript', { session: 'agent-doomed', include_dead: true }));
    expect(exported.truncated).toBe(false);
    const [header, ...events] = (exported.cast as string).trimEnd().split('\n');
    expect(JSON.parse(header!)).toMatchObject({ version: 2, width: expect.any(Number), height: expect.any(Number) });
    let last = 0;
    for (const line of events) {
      const e = JSON.parse(line) as unknown[];
      expect(e).toHaveLength(3);
      expect(typeof e[0]).toBe('number');
      // Output, or a marker (a snapshot's start and end, a stretch not recorded).
      expect(['o', 'm']).toContain(e[1]);
      expect(typeof e[2]).toBe('string');
      expect(e[0] as number).toBeGreaterThanOrEqual(last);
      last = e[0] as number;
    }
    expect(exported.cast).toContain('doomed-first');
    expect(exported.cast).not.toContain('Q7ZK2M5RW');

    // The unreadable session was never recorded: nothing of it is on disk.
    const root = join(broker.stateDir, 'transcripts');
    const everything = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    expect(everything).toContain('doomed-first');
    expect(everything).not.toContain('private-mark-9a1');
    expect(everything).not.toContain('Q7ZK2M5RW');
  });
});

describe('output printed before the broker started', { timeout: 180_000 }, () => {
  it('is replayed after the session is killed (the snapshot taken when recording began)', async () => {
    await watched('agent-early');
    const c = await stdioClient();
    await tmux.tmux(['kill-session', '-t', '=agent-early']);
    const tail = await waitFor('the early session is gone', async () => {
      const r = await call(c, 'terminal_tail', { session: 'agent-early', include_dead: true });
      return !r.isError && (r.structuredContent as Record<string, unknown>).dead === true && ok(r);
    });
    expect((tail.text as string).split('\n')).toEqual(['early-bird-1', 'early-bird-2 [REDACTED:github_token]']);
    const exported = castOf(await call(c, 'terminal_export_transcript', { session: 'agent-early', include_dead: true }));
    expect(exported.cast).toContain('"snapshot"');
    expect(exported.cast).not.toContain('abcdefghijklmnop');
  });
});

describe('a broker that was killed', { timeout: 180_000 }, () => {
  it('leaves a quiet pane piped, and the next broker takes that pipe back as its own and records the pane again', async () => {
    const s = await tmux.newSession('agent-quiet', 'cat');
    await watched('agent-quiet');
    process.kill(broker.pid, 'SIGKILL');
    await broker.exited();
    // Nothing printed since: the dead broker's cat still waits on the pane.
    expect(await tmux.tmux(['display-message', '-p', '-t', s.paneId, '#{pane_pipe}'])).toBe('1');
    broker = await broker.restart();
    const c = await stdioClient();
    const cursor = await waitFor('a cursor from the new broker', async () => {
      const r = ok(await call(c, 'terminal_tail', { session: 'agent-quiet' }));
      return typeof r.cursor === 'string' && (r.cursor as string);
    });
    await tmux.tmux(['send-keys', '-t', s.paneId, '-l', 'typed after the restart']);
    await tmux.tmux(['send-keys', '-t', s.paneId, 'Enter']);
    await waitFor('the new broker records the pane', async () => {
      const r = ok(await call(c, 'terminal_read_since', { session: 'agent-quiet', cursor }));
      return (r.text as string).includes('typed after the restart');
    });
  });
});

describe('output the broker did not record', { timeout: 180_000 }, () => {
  it('tells a reader whose cursor is from before a broker restart that output was not recorded, once', async () => {
    // Prints all the time, so some lines fall in the restart, when no broker records.
    await tmux.newSession('agent-gap', `sh -c 'i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo gap-$i; sleep 0.05; done; exec sleep 3600'`);
    await watched('agent-gap');
    const before = await stdioClient();
    const cursor = ok(await call(before, 'terminal_tail', { session: 'agent-gap', lines: 1 })).cursor as string;
    await waitFor('lines recorded before the restart', async () => (ok(await call(before, 'terminal_read_since', { session: 'agent-gap', cursor })).line_count as number) > 3);

    // While no broker runs, the pane prints more than a screen: the new broker's snapshot of
    // the screen cannot cover all of it, however fast or slow the restart is.
    const lastTick = async () => Math.max(0, ...(await tmux.tmux(['capture-pane', '-p', '-t', '=agent-gap:'])).split('\n').flatMap((l) => (/^gap-\d+$/.test(l) ? [Number(l.slice(4))] : [])));
    broker = await broker.restart({
      whileStopped: async () => {
        const stoppedAt = await lastTick();
        await waitFor('a screenful printed while no broker records', async () => (await lastTick()) > stoppedAt + 80);
      },
    });
    await watched('agent-gap');
    const after = await stdioClient();
    const ticks = (text: string) => text.split('\n').flatMap((l) => (/^gap-\d+$/.test(l) ? [Number(l.slice(4))] : []));
    // Read until lines written after the restart arrive (the recorder resumes on the first
    // registry pass of the new broker).
    const since = await waitFor('lines recorded after the restart', async () => {
      const r = ok(await call(after, 'terminal_read_since', { session: 'agent-gap', cursor, max_lines: 2000 }));
      return r.dropped === true && r;
    });
    expect(since.dropped_reason).toBe('unrecorded');
    const seen = ticks(since.text as string);
    // What is returned is what was recorded: a hole where the broker was down.
    const holes = seen.slice(1).filter((n, i) => n !== seen[i]! + 1);
    expect(holes.length).toBeGreaterThan(0);
    // Reported once: the next read from the new cursor is contiguous again.
    const next = ok(await call(after, 'terminal_read_since', { session: 'agent-gap', cursor: since.cursor as string, max_lines: 2000 }));
    expect(next.dropped).toBe(false);
    // A fresh cursor (taken after the restart) never reports the gap.
    const fresh = ok(await call(after, 'terminal_tail', { session: 'agent-gap', lines: 1 })).cursor as string;
    expect(ok(await call(after, 'terminal_read_since', { session: 'agent-gap', cursor: fresh, max_lines: 2000 })).dropped).toBe(false);
  });
});

describe('panes of one session', { timeout: 180_000 }, () => {
  it('gives a read of one pane that pane\'s lines only: its cursor, read_since with pane, a batch row per pane, its export, and after the session is gone', async () => {
    const left = await tmux.newSession('agent-split', `sh -c 'echo left-start; read go; echo left-1; echo left-2; exec sleep 3600'`);
    // -d: the left pane stays active, so a read without pane is of the left one.
    const right = await tmux.tmux(['split-window', '-d', '-P', '-F', '#{pane_id} #{window_index}.#{pane_index}', '-t', left.paneId, `sh -c 'echo right-start; read go; echo right-1; echo right-2; exec sleep 3600'`]);
    const [rightId, rightRef] = right.split(' ') as [string, string];
    const leftRef = await tmux.tmux(['display-message', '-p', '-t', left.paneId, '#{window_index}.#{pane_index}']);
    // The recorder finds a split pane by its scan (every 2 s): both panes piped.
    await waitFor('both panes recorded', async () => (await tmux.tmux(['list-panes', '-t', left.paneId, '-F', '#{pane_pipe}'])).split('\n').join('') === '11');
    await waitFor('both starts printed', async () => (await tmux.tmux(['capture-pane', '-p', '-t', rightId])).includes('right-start'));
    const c = await stdioClient();

    const rightTail = ok(await call(c, 'terminal_tail', { session: 'agent-split', pane: rightRef }));
    expect(rightTail).toMatchObject({ pane_id: rightId });
    expect(rightTail.text).toContain('right-start');
    const rightCursor = rightTail.cursor as string;
    const wholeCursor = ok(await call(c, 'terminal_tail', { session: 'agent-split' })).cursor as string;
    expect(typeof rightCursor).toBe('string');

    await tmux.tmux(['send-keys', '-t', left.paneId, 'Enter']);
    await tmux.tmux(['send-keys', '-t', rightId, 'Enter']);
    /** Reads since the cursor, following each next cursor, until `last` lines were seen. */
    const readAll = async (args: Record<string, unknown>, ...last: string[]) => {
      const seen: string[] = [];
      let cursor = args.cursor as string;
      await waitFor(`${last.join(', ')} read since the cursor`, async () => {
        const r = ok(await call(c, 'terminal_read_since', { session: 'agent-split', ...args, cursor }));
        seen.push(...(r.line_count ? (r.text as string).split('\n') : []));
        cursor = r.cursor as string;
        return last.every((l) => seen.includes(l));
      });
      return seen.filter((l) => /^(left|right)-/.test(l));
    };
    // The cursor of the right pane's read follows the right pane.
    expect(await readAll({ cursor: rightCursor }, 'right-2')).toEqual(['right-1', 'right-2']);
    // `pane` (window.pane) chooses the pane, whatever the cursor's read was of.
    expect(await readAll({ cursor: wholeCursor, pane: leftRef }, 'left-2')).toEqual(['left-1', 'left-2']);
    // Without a pane anywhere: every pane's lines.
    const both = await readAll({ cursor: wholeCursor }, 'left-2', 'right-2');
    expect([...both].sort()).toEqual(['left-1', 'left-2', 'right-1', 'right-2']);

    const exported = castOf(await call(c, 'terminal_export_transcript', { session: 'agent-split', pane: rightId })).cast;
    const outputs = exported.trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as [number, string, string]).filter((e) => e[1] === 'o').map((e) => e[2].trimEnd());
    expect(outputs.filter((l) => /^(left|right)-/.test(l))).toEqual(['right-start', 'right-1', 'right-2']);
    expect(castOf(await call(c, 'terminal_export_transcript', { session: 'agent-split' })).cast).toContain(`"pane ${rightId}"`);

    // The overview with a row per pane: both panes, each row's cursor following its pane; a
    // session the caller may not read is one refused row, its panes not even listed.
    await tmux.newSession('secret-split', 'sleep 3600');
    const batch = await call(c, 'terminal_batch_inspect', { sessions: ['agent-split', 'secret-split'], panes: true, lines: 5 });
    const heads = textOf(batch).split('\n').filter((l) => l.startsWith('== '));
    const paneRows = heads.filter((l) => l.startsWith('== "agent-split": ')).map((l) => ({ pane: /\bpane=(%\d+)/.exec(l)?.[1], cursor: /\bcursor=(\S+)/.exec(l)?.[1] ?? '' }));
    expect(paneRows.map((r) => r.pane).sort()).toEqual([left.paneId, rightId].sort());
    // Each row's cursor is that pane's (documented: base64url of a small JSON; n is the pane).
    for (const r of paneRows) expect((JSON.parse(Buffer.from(r.cursor, 'base64url').toString('utf8')) as { n?: string }).n).toBe(r.pane);
    expect(textOf(batch)).toContain('right-2');
    expect(heads.filter((l) => l.startsWith('== "secret-split": '))).toEqual([expect.stringMatching(/^== "secret-split": SESSION_NOT_ALLOWED /)]);
    expect(heads.find((l) => l.startsWith('== "secret-split": '))).not.toContain('pane=');

    await tmux.tmux(['kill-session', '-t', left.sessionId]);
    const deadRight = await waitFor('the split session is gone', async () => {
      const r = await call(c, 'terminal_tail', { session: 'agent-split', pane: rightId, include_dead: true });
      return !r.isError && (r.structuredContent as Record<string, unknown>).dead === true && ok(r);
    });
    expect((deadRight.text as string).split('\n').filter((l) => /^(left|right)-/.test(l))).toEqual(['right-start', 'right-1', 'right-2']);
    expect(deadRight.pane_id).toBe(rightId);
    // A gone session has no listing to resolve window.pane: by id only, with a hint that says so.
    const byRef = await call(c, 'terminal_tail', { session: 'agent-split', pane: rightRef, include_dead: true });
    expect(codeOf(byRef)).toBe('INVALID_ARGUMENT');
    expect(hintOf(byRef)).toContain('pane id');
  });
});
