/**
 * `npm run bench [-- --only tail,list,...]`: our read path against the baseline of
 * spawning one tmux process per read, side by side in ONE run on one private tmux server,
 * so the ratios hold on a loaded machine (absolute figures do not). Sections:
 *
 *   first    a fresh broker at 200 sessions under BENCH_HOGS (2) CPU hogs: time to listen, its first
 *            list and tail, failures in the first BENCH_FIRST_SECONDS (15); the stdio launcher's
 *            first answer with a broker running and when it must start one (quiet and loaded)
 *   tail     terminal_tail (200 lines) over MCP stdio and HTTP vs `tmux capture-pane`
 *   list     terminal_list_sessions (50 sessions) vs `tmux list-sessions -F` with the fields the
 *            answer carries (LIST_FORMAT: last_activity as the broker reads it, a #{W:} loop)
 *   batch    terminal_batch_inspect (25 sessions) vs 2 spawns per session
 *   hops     MCP ping, empty broker call, broker read, control-mode capture alone (the floor)
 *   idle     broker CPU over BENCH_IDLE_SECONDS (60) with 50 idle sessions, one live subscription
 *   live     pane output -> live.paneOutput frame on web.sock (broker subscription)
 *   browser  pane output -> dashboard frame in headless Chromium (production web build)
 *   scale    broker RSS and terminal_list_sessions at 200 sessions
 *   redact   the redactor's cost per 200 lines (and another build's: BENCH_REDACT_BEFORE)
 *   catalogue tools/list bytes: gateway, its default, every toolset combination, observer
 *   answers  every list-shaped tool's answer bytes (sessions at BENCH_ANSWER_SESSIONS, default 50,200)
 *   run      terminal_run of `true` and `seq 1 100` vs send-keys of `bash -c '...; echo MARK $?'`
 *            and capture-pane every 100 ms until the marker shows (BENCH_RUN_ITER, 30)
 *   nodes    20 nodes x 10 sessions over a real sshd: remote tail vs local tail and vs one
 *            `ssh host tmux capture-pane` per read, the 20-node list, broker RSS and idle CPU
 *            (BENCH_NODES_ITER 30, BENCH_NODES_IDLE_SECONDS 30; skipped without sshd)
 *   hosts    BENCH_HOSTS (100) nodes x 10 sessions over a real sshd (1,010 sessions): time until
 *            every node is up, the list of all sessions in one call, a node tail, broker RSS,
 *            its ssh processes' memory, idle CPU (BENCH_HOSTS_ITER 30, BENCH_HOSTS_IDLE_SECONDS 30)
 * BENCH_BEFORE=<another checkout, built>: catalogue and answers measure it too, side by side.
 *
 * Baseline: Node's child_process.execFile('tmux', ...), the fastest honest way to spawn;
 * execa is printed as a second line. Figures are p50/p99 of interleaved calls.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GATEWAY_TOOLSETS, NOTE_LIMITS, type PaneLiveEvent } from '@terminal-mcp/contract';
import { BROKER_NODE_FLAGS, createBrokerClient, createBrokerLiveClient, createOperatorAccount, parseRows, repoPath, signInFirstTime, sshdUnavailable, startBrokerProcess, startTmuxServer, startWebStack } from '@terminal-mcp/test';
import { execa } from 'execa';
import { execFile, spawn } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { openControlFloor } from './control-floor.js';
import { benchNoteSearch } from './notes.js';
import { benchRedactorCost } from './redactor-cost.js';
import { benchCatalogue } from './catalogue.js';
import { benchListAnswers, type AnswerBytes } from './list-answers.js';
import { benchRunCommand } from './run-command.js';
import { benchNodes, BENCH_NODES, BENCH_NODE_SESSIONS } from './nodes.js';
import { benchHosts } from './hosts.js';
import { benchFirstCall, FIRST_SESSIONS } from './first-call.js';
import { measureSupervisorLatency } from './supervisor-latency.js';
import { cpuSeconds, load, memoryParts, rssMb } from './proc-stats.js';
import { roundedRatio, summarize, time, type Stats } from './stats.js';
import { createTeardown } from './teardown.js';

const SECTIONS = ['first', 'tail', 'list', 'batch', 'hops', 'idle', 'live', 'browser', 'notes', 'supervisor', 'scale', 'redact', 'catalogue', 'answers', 'run', 'nodes', 'hosts'] as const;
/** Sections that start what they need themselves (no shared 50-session stack). */
const STANDALONE: readonly Section[] = ['first', 'browser', 'redact', 'catalogue', 'answers', 'run', 'nodes', 'hosts'];
type Section = (typeof SECTIONS)[number];

function parseArgs(argv: readonly string[]): Set<Section> {
  const i = argv.indexOf('--only');
  if (i < 0) return new Set(SECTIONS);
  const asked = (argv[i + 1] ?? '').split(',').filter(Boolean);
  for (const s of asked) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section ${s}; sections: ${SECTIONS.join(',')}`);
  return new Set(asked as Section[]);
}

const only = parseArgs(process.argv.slice(2));
const ITER = Number(process.env.BENCH_ITER ?? 200);
/** BENCH_ROUNDS=R: the tail and list sections take R x their iterations and judge each
 * ratio target on the median of R rounds (stats.ts roundedRatio), printing every round's. */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 1)));
/** Calls of every path before anything is timed. The services are daemons: what a client
 * meets is their steady state, after V8 has optimised the per-call code. Measured A/B/A
 * (five rounds each, tail and list): 20 calls gave tail stdio 0.47x / HTTP 0.75x / list
 * 0.45x, 300 calls 0.39x / 0.65x / 0.42x. The first calls of a new gateway are timed on
 * their own row (`cold`), so the start-up cost stays visible. */
const WARMUP = Math.max(1, Math.floor(Number(process.env.BENCH_WARMUP ?? 300)));
const COLD_CALLS = 20;
/** The dashboard operator the idle and live sections sign in as. */
const OPERATOR = { username: 'operator', password: 'idle and live frames 2048' } as const;
const BATCH_ITER = Number(process.env.BENCH_BATCH_ITER ?? 30);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const LIVE_SAMPLES = Number(process.env.BENCH_LIVE_SAMPLES ?? 40);
const SESSIONS = 50;
const SCALE_SESSIONS = 200;
const TAIL_LINES = 200;
const BATCH_SIZE = 25;
const BATCH_LINES = 10;
// As many notes as one client may hold (the bench's notes are one client's: 10,000 met
// QUOTA_EXCEEDED at 2,000 once the per-client quota came).
const NOTES = Math.min(Number(process.env.BENCH_NOTES ?? NOTE_LIMITS.notesPerActor), NOTE_LIMITS.notesPerActor);
const NOTE_SEARCH_CALLS = Number(process.env.BENCH_NOTE_SEARCH_CALLS ?? 300);
/** The fields terminal_list_sessions reports, as one list-sessions format (pane fields
 * resolve to each session's active pane). last_activity is the latest window_activity of
 * the session's windows (a #{W:} loop), as the broker asks, not #{session_activity}. */
const LIST_FORMAT = '#{session_id}\t#{session_name}\t#{session_created}\t#{session_attached}\t#{session_windows}\t#{W:#{window_activity} }\t#{pane_in_mode}\t#{pane_current_command}';
/** What the broker's control client sends for terminal_list_sessions (effects/tmux/adapter.ts;
 * copied here to time tmux's own share), in one write with the clients (to discount our
 * output watchers). A list between session changes asks only for the facts tmux does not
 * announce (announced-facts.ts); the first after a change asks for all, plus the server pid. */
const LIST_CLIENTS = "list-clients -F '#{session_id}\t#{client_termname}'";
const BROKER_LIST_COMMANDS = [
  "list-sessions -F 'tag\t#{session_id}\t#{session_attached}\t#{W:#{window_activity} }\t#{pane_in_mode}\t#{pane_current_command}'",
  LIST_CLIENTS,
];
/** The same list without `#{pane_current_command}`, which tmux reads from /proc for every
 * session (an open and read of /proc/<pgrp>/cmdline): what that one field costs. */
const BROKER_LIST_COMMANDS_NO_COMMAND = [BROKER_LIST_COMMANDS[0]!.replace('\t#{pane_current_command}', ''), LIST_CLIENTS];
if (BROKER_LIST_COMMANDS_NO_COMMAND[0] === BROKER_LIST_COMMANDS[0]) throw new Error('the list format no longer ends in pane_current_command: update the bench');
const BROKER_FULL_LIST_COMMANDS = [
  "list-sessions -F 'tag\t#{pid}\t#{session_id}\t#{session_created}\t#{session_attached}\t#{session_windows}\t#{W:#{window_activity} }\t#{session_name}\t#{pane_in_mode}\t#{pane_current_command}'",
  LIST_CLIENTS,
];
/** A pane that prints its own wall clock (ns) four times a second: latency = when we see
 * the line minus the time in it (same machine, same clock). */
const CLOCK_COMMAND = `bash --norc --noprofile -c 'while :; do sleep 0.25; echo "MARK $(date +%s%N)"; done'`;

const results: { target: string; figure: string; met: boolean; detail?: string }[] = [];
const target = (name: string, figure: string, met: boolean, detail?: string) => results.push({ target: name, figure, met, ...(detail !== undefined ? { detail } : {}) });
/** A ratio target on our samples against the baseline's: the median over ROUNDS rounds,
 * with each round's ratio, how many met the limit and each round's two p50s when there is
 * more than one. */
function ratioTarget(name: string, ours: readonly number[], base: readonly number[], limit: number): void {
  const r = roundedRatio(ours, base, ROUNDS);
  const rounds = r.rounds.length > 1 ? ` (rounds ${r.rounds.map((x) => x.toFixed(2)).join(' ')}; ${r.rounds.filter((x) => x <= limit).length} of ${r.rounds.length} within)` : '';
  const detail = r.rounds.length > 1 ? `p50 per round, ours / baseline (ms): ${r.p50s.map((x) => `${x.ours.toFixed(2)}/${x.base.toFixed(2)}`).join(' ')}` : undefined;
  target(name, `${r.median.toFixed(2)}x${rounds}`, r.median <= limit, detail);
}

const ms = (v: number) => `${v.toFixed(2).padStart(7)} ms`;
function row(label: string, s: Stats, base?: Stats): void {
  const ratio = base ? `   ${(s.p50 / base.p50).toFixed(2)}x baseline` : '';
  console.log(`  ${label.padEnd(38)} p50 ${ms(s.p50)}   p99 ${ms(s.p99)}   (n=${s.n})${ratio}`);
}
const section = (title: string) => console.log(`\n${title}   [${load()}]`);

/** The gateway's port, from its banner (stdout; stderr carries its JSON log lines). */
function waitForPort(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = buf.match(/http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      if (m) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        // Drained from now on, so a chatty gateway never blocks on a full pipe.
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${buf}`)));
  });
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
function check(r: ToolResult): ToolResult {
  if (r.isError) throw new Error(`tool failed: ${JSON.stringify(r.content)}`);
  return r;
}
/** List answers are text only (docs/tools.md): the text is what a client reads. */
const textOfAnswer = (r: ToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

/** GET `path` on a broker socket over HTTP/1.1 with a kept-alive connection: the per-call
 * HTTP framing the call link replaced, for comparison in the same run. */
function httpGetter(socketPath: string): (path: string) => Promise<unknown> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  return (path) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ socketPath, path, agent, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`))));
      });
      req.on('error', reject);
      req.end();
    });
}

/** The 300 lines every bench session prints before it waits (a shell script for bash -c). */
const historyOf = (name: string) => `for i in $(seq 1 300); do echo "line $i of ${name}: lorem ipsum dolor sit amet"; done`;

/** An MCP request (ping, a tool call) POSTed with node:http on a kept-alive connection, in
 * the SDK client's session: the same server path as the SDK client's call without the SDK
 * client and fetch, so the client's share of the HTTP hop shows in the same run. */
function rawMcpCaller(port: number, transport: StreamableHTTPClientTransport, token: string): (method: string, params?: unknown) => Promise<unknown> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  return (method, params) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: `raw-${++id}`, method, ...(params === undefined ? {} : { params }) });
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(Buffer.byteLength(body)), authorization: `Bearer ${token}` };
      if (transport.sessionId) headers['mcp-session-id'] = transport.sessionId;
      if (transport.protocolVersion) headers['mcp-protocol-version'] = transport.protocolVersion;
      const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
}

/** Milliseconds since the epoch with sub-millisecond precision. */
const wallMs = () => performance.timeOrigin + performance.now();
/** Latencies (ms) of MARK lines in `text` not seen before. */
function newMarks(text: string, seen: Set<string>, at: number): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/MARK (\d{19})/g)) {
    if (seen.has(m[1]!)) continue;
    seen.add(m[1]!);
    out.push(at - Number(BigInt(m[1]!) / 1000n) / 1000);
  }
  return out;
}

/** Everything the run started (brokers, the HTTP gateway, tmux servers, clients): stopped
 * when it ends, however it ends (teardown.ts). */
const owned = createTeardown();
/** BENCH_FAIL_SECTION=<section>: that section throws once the shared stack is up (or, for a
 * standalone section, once its own parts are), so the bench's own test (teardown.test.ts)
 * can check a failing section leaves nothing running. */
const FAIL_SECTION = process.env.BENCH_FAIL_SECTION;
function failHere(name: Section): void {
  if (FAIL_SECTION === name) throw new Error(`BENCH_FAIL_SECTION=${name}: failing the section on purpose`);
}

async function main(): Promise<void> {
  console.log(`Terminal MCP bench, node ${process.version}, sections: ${[...only].join(',')}, warm-up ${WARMUP} calls per path, ${ROUNDS} round(s)   [${load()}]`);
  const spawnEnv = { ...process.env };
  delete spawnEnv.TMUX;
  delete spawnEnv.TMUX_PANE;

  if (only.has('first')) {
    const hogs = Number(process.env.BENCH_HOGS ?? 2);
    const f = await benchFirstCall(owned, hogs, Number(process.env.BENCH_FIRST_SECONDS ?? 15), () => failHere('first'));
    // Everything it started is stopped before the next section measures anything.
    await owned.run();
    section(`first call: a fresh broker at ${FIRST_SESSIONS} sessions (all readable, all recording) with ${f.hogs} CPU hog(s)`);
    const call = (c: { ms: number; error?: string }) => `${ms(c.ms)}${c.error === undefined ? '' : `   FAILED: ${c.error}`}`;
    console.log(`  spawn -> gateway.sock accepts              ${ms(f.listenMs)}`);
    console.log(`  spawn -> first broker answer (health.info) ${ms(f.answerMs)}   (asked the moment it listened: the rest of the start)`);
    console.log(`  first terminal_list_sessions (at once)     ${call(f.firstList)}`);
    console.log(`  first terminal_tail (at once)              ${call(f.firstTail)}`);
    console.log(`  calls in the next ${f.early.seconds} s: ${f.early.calls}, failed ${f.early.failed}${f.early.errors.length > 0 ? ` (${f.early.errors.join(' | ')})` : ''}`);
    const l = f.launcher;
    console.log(`  stdio launcher (median of its launches), broker running:  initialize ${ms(l.quiet.runningInitMs)} quiet, ${ms(l.runningInitMs)} loaded; first list ${ms(l.quiet.runningListMs)} quiet, ${ms(l.runningListMs)} loaded`);
    console.log(`  stdio launcher (median of its launches), starts a broker: initialize ${ms(l.quiet.startingInitMs)} quiet, ${ms(l.startingInitMs)} loaded; first list ${ms(l.quiet.startingListMs)} quiet, ${ms(l.startingListMs)} loaded`);
    target(`first list and tail at ${FIRST_SESSIONS} sessions succeed under ${f.hogs} hogs, none failing for ${f.early.seconds} s`, `${f.early.failed + (f.firstList.error ? 1 : 0) + (f.firstTail.error ? 1 : 0)} failed`, f.early.failed === 0 && f.firstList.error === undefined && f.firstTail.error === undefined);
    target('broker listens within 1 s of start (under the hogs)', ms(f.listenMs), f.listenMs <= 1000);
    target('launcher first answer <= 1 s with a broker running (quiet)', ms(l.quiet.runningListMs), l.quiet.runningListMs <= 1000);
    target('launcher first answer <= 3 s when it starts a broker (quiet)', ms(l.quiet.startingListMs), l.quiet.startingListMs <= 3000);
  }

  const needsStack = [...only].some((s) => !STANDALONE.includes(s));
  if (needsStack) {
    const tmux = await startTmuxServer();
    owned.add('the 50-session tmux server', () => tmux.kill());
    const names: string[] = [];
    const panes: string[] = [];
    const addSession = async (i: number) => {
      const name = `agent-${String(i).padStart(3, '0')}`;
      const s = await tmux.newSession(name, `bash --norc --noprofile -c '${historyOf(name)}; exec sleep 100000'`, { width: 160, height: 50 });
      names.push(name);
      panes.push(s.paneId);
    };
    for (let i = 0; i < SESSIONS; i++) await addSession(i);
    await new Promise((r) => setTimeout(r, 500));
    // Every toolset: the notes section calls note_* (not in the default catalogue).
    const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn', gateway: { toolsets: { default: [...GATEWAY_TOOLSETS] } } } });
    owned.add('the broker', () => broker.stop());
    // The gateway as npm start runs it: with a bearer token (it refuses to start open).
    const token = randomBytes(24).toString('hex');
    const gateway = spawn(process.execPath, [repoPath('services/gateway/dist/bin/http.js')], {
      env: { ...broker.env, TERMINAL_MCP_GATEWAY_PORT: '0', TERMINAL_MCP_GATEWAY_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    owned.add('the HTTP gateway', () => stopChild(gateway));
    const port = await waitForPort(gateway);
    const http = new Client({ name: 'bench-http', version: '1' });
    const httpTransport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await http.connect(httpTransport);
    owned.add('the HTTP MCP client', () => http.close());
    const stdio = new Client({ name: 'bench-stdio', version: '1' });
    owned.add('the stdio gateway', () => stdio.close());
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/gateway/dist/bin/stdio.js')], env: broker.env as Record<string, string>, stderr: 'ignore' }));
    const direct = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
    for (const name of ['tail', 'list', 'batch', 'hops', 'idle', 'live', 'notes', 'supervisor', 'scale'] as const) if (only.has(name)) failHere(name);

    const tmuxArgs = ['-L', tmux.socketName];
    const execFileAsync = promisify(execFile);
    const spawnTmux = (args: string[]) => execFileAsync('tmux', [...tmuxArgs, ...args], { env: spawnEnv });
    const execaTmux = (args: string[]) => execa('tmux', [...tmuxArgs, ...args], { env: spawnEnv, extendEnv: false });
    const tail = (client: Client, name: string) => client.callTool({ name: 'terminal_tail', arguments: { session: name, lines: TAIL_LINES } }).then(check);
    const captureArgs = (pane: string) => ['capture-pane', '-p', '-J', '-t', pane, '-S', `-${TAIL_LINES}`];
    const list = (client: Client) => client.callTool({ name: 'terminal_list_sessions', arguments: {} }).then(check);
    /** The scripts' API (issue 49): the same tail as a JSON route on the same gateway. */
    const apiTail = async (name: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/sessions/${encodeURIComponent(name)}/tail?lines=${TAIL_LINES}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { text?: unknown };
      if (res.status !== 200 || typeof body.text !== 'string') throw new Error(`API tail failed: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      return body;
    };

    // Warm up every path (JIT, connections, the control client); the first calls of the
    // new stdio gateway are kept as the cold figures.
    const coldTail: number[] = [];
    const coldList: number[] = [];
    for (let i = 0; i < WARMUP; i++) {
      const cold = i < COLD_CALLS;
      await tail(http, names[i % SESSIONS]!);
      await apiTail(names[i % SESSIONS]!);
      await (cold ? time(coldTail, () => tail(stdio, names[i % SESSIONS]!)) : tail(stdio, names[i % SESSIONS]!));
      await (cold ? time(coldList, () => list(stdio)) : list(stdio));
      await direct.sessions.tail.query({ session: names[i % SESSIONS]!, lines: TAIL_LINES });
      await spawnTmux(captureArgs(panes[i % SESSIONS]!));
    }

    if (only.has('tail')) {
      const [h, s, base, ea, api] = [[], [], [], [], []] as number[][];
      for (let i = 0; i < ITER * ROUNDS; i++) {
        const idx = i % SESSIONS;
        // Interleaved so machine noise hits every path alike.
        await time(h!, () => tail(http, names[idx]!));
        await time(api!, () => apiTail(names[idx]!));
        await time(s!, () => tail(stdio, names[idx]!));
        await time(base!, () => spawnTmux(captureArgs(panes[idx]!)));
        await time(ea!, () => execaTmux(captureArgs(panes[idx]!)));
      }
      section(`terminal_tail (${TAIL_LINES} lines, ${SESSIONS} sessions)`);
      const b = summarize(base!);
      const [hs, ss] = [summarize(h!), summarize(s!)];
      row('ours, MCP over stdio', ss, b);
      row('ours, MCP over HTTP', hs, b);
      row('ours, HTTP API (GET /api/v1/.../tail)', summarize(api!), b);
      // The scripts' API must cost no more than MCP over HTTP (issue 49).
      ratioTarget('tail through the HTTP API / through MCP over HTTP (<= 1.0x)', api!, h!, 1.0);
      row(`ours, stdio, first ${coldTail.length} calls (cold)`, summarize(coldTail), b);
      row('baseline, execFile capture-pane', b);
      row('second baseline, execa capture-pane', summarize(ea!), b);

      // The same read of a pane that printed since the last read (an agent at work):
      // nothing remembered applies (services/broker/src/reads/cut-memo.ts), so this is
      // the cost of redacting afresh. The rows above re-read quiet panes, whose cuts are
      // remembered. A separate session, killed again before the list section counts.
      const busyName = 'agent-busy';
      const busy = await tmux.newSession(busyName, `bash --norc --noprofile -c '${historyOf(busyName)}; n=0; while :; do n=$((n+1)); echo "tick $n of ${busyName}: lorem ipsum dolor sit amet"; sleep 0.02; done'`, { width: 160, height: 50 });
      const [bs, bb] = [[], []] as number[][];
      for (let i = 0; i < 10; i++) await tail(stdio, busyName);
      for (let i = 0; i < Math.min(ITER, 150); i++) {
        await new Promise((r) => setTimeout(r, 30));
        await time(bs!, () => tail(stdio, busyName));
        await time(bb!, () => spawnTmux(captureArgs(busy.paneId)));
      }
      await tmux.tmux(['kill-session', '-t', busy.sessionId]);
      const busyBase = summarize(bb!);
      row('ours, stdio, pane printing meanwhile', summarize(bs!), busyBase);
      row('baseline, execFile, same pane', busyBase);
      // What a 200-line tail costs on the wire (issue 48: the text used to travel twice),
      // against the pane text itself (what a peer that returns the raw capture sends).
      const answer = await tail(stdio, names[0]!);
      const answerBytes = Buffer.byteLength(JSON.stringify({ content: answer.content, ...(answer.structuredContent ? { structuredContent: answer.structuredContent } : {}) }));
      const paneBytes = Buffer.byteLength((await spawnTmux(captureArgs(panes[0]!))).stdout);
      console.log(`  answer bytes (stdio client, no MCP Apps): ${answerBytes} B for ${TAIL_LINES} lines = ${(answerBytes / TAIL_LINES).toFixed(1)} B/line; the capture itself ${paneBytes} B (${(paneBytes / TAIL_LINES).toFixed(1)} B/line); answer / capture ${(answerBytes / paneBytes).toFixed(2)}x; structuredContent ${answer.structuredContent ? 'present' : 'absent'}`);
      ratioTarget('tail stdio p50 <= 0.5x baseline', s!, base!, 0.5);
      ratioTarget('tail HTTP p50 <= 0.6x baseline', h!, base!, 0.6);
    }

    const listBench = async (label: string, count: number, iterations: number, cold?: readonly number[]) => {
      const [s, h, base, ea, cm, cmFull, cmNoCommand, ping, empty] = [[], [], [], [], [], [], [], [], []] as number[][];
      // tmux's own share: the broker's listing commands on a control client of our own.
      const floor = await openControlFloor(tmux.socketName, names[0]!, spawnEnv);
      for (let i = 0; i < iterations * ROUNDS; i++) {
        await time(s!, async () => {
          const r = await list(stdio);
          const listed = parseRows(textOfAnswer(r), 'name').length;
          if (listed !== count) throw new Error(`listed ${listed} sessions, expected ${count}`);
        });
        await time(h!, () => list(http));
        await time(base!, () => spawnTmux(['list-sessions', '-F', LIST_FORMAT]));
        await time(ea!, () => execaTmux(['list-sessions', '-F', LIST_FORMAT]));
        await time(cm!, () => Promise.all(BROKER_LIST_COMMANDS.map((c) => floor.run(c))));
        await time(cmFull!, () => Promise.all(BROKER_FULL_LIST_COMMANDS.map((c) => floor.run(c))));
        await time(cmNoCommand!, () => Promise.all(BROKER_LIST_COMMANDS_NO_COMMAND.map((c) => floor.run(c))));
        await time(ping!, () => stdio.ping());
        await time(empty!, () => direct.health.info.query());
      }
      await floor.close();
      section(`terminal_list_sessions (${label})`);
      const b = summarize(base!);
      const ss = summarize(s!);
      row('ours, MCP over stdio', ss, b);
      row('ours, MCP over HTTP', summarize(h!), b);
      if (cold) row(`ours, stdio, first ${cold.length} calls (cold)`, summarize(cold), b);
      row('baseline, execFile list-sessions -F', b);
      row('second baseline, execa list-sessions', summarize(ea!), b);
      row('tmux alone: control-mode listing', summarize(cm!), b);
      row('  same, after a session change (all facts)', summarize(cmFull!), b);
      const noCommand = summarize(cmNoCommand!);
      row('  same without pane_current_command', noCommand, b);
      // The least any list can cost: tmux's listing, one MCP round trip, one broker call,
      // and nothing for the rows themselves.
      const hops = summarize(ping!).p50 + summarize(empty!).p50;
      const floorRatio = (listing: number) => `${ms(listing + hops)} = ${((listing + hops) / b.p50).toFixed(2)}x baseline`;
      console.log(`  floor (listing + MCP ping + empty broker call, rows free) p50: ${floorRatio(summarize(cm!).p50)}; without pane_current_command ${floorRatio(noCommand.p50)}`);
      console.log(`  baseline format (the answer's fields): ${LIST_FORMAT.replace(/\t/g, ' ')}`);
      ratioTarget(`list_sessions at ${count} sessions p50 <= 0.5x baseline (stdio)`, s!, base!, 0.5);
    };
    if (only.has('list')) await listBench(`${SESSIONS} sessions`, SESSIONS, ITER, coldList);

    if (only.has('batch')) {
      const [s, base] = [[], []] as number[][];
      for (let i = 0; i < BATCH_ITER; i++) {
        const offset = (i * 7) % (SESSIONS - BATCH_SIZE);
        const batch = names.slice(offset, offset + BATCH_SIZE);
        const batchPanes = panes.slice(offset, offset + BATCH_SIZE);
        await time(s!, async () => {
          const r = check(await stdio.callTool({ name: 'terminal_batch_inspect', arguments: { sessions: batch, lines: BATCH_LINES } }));
          // One block per session, its head line with ok=false when it could not be read.
          const heads = textOfAnswer(r).split('\n').filter((l) => l.startsWith('== '));
          if (heads.length !== BATCH_SIZE || heads.some((l) => l.includes(' ok=false'))) throw new Error('batch inspect incomplete');
        });
        // Per session: one spawn for the facts status needs, one for the text.
        await time(base!, async () => {
          for (const pane of batchPanes) {
            await spawnTmux(['display-message', '-p', '-t', pane, '#{session_name}\t#{pane_current_command}\t#{pane_in_mode}\t#{window_activity}']);
            await spawnTmux(['capture-pane', '-p', '-J', '-t', pane, '-S', `-${BATCH_LINES}`]);
          }
        });
      }
      section(`terminal_batch_inspect (${BATCH_SIZE} sessions, ${BATCH_LINES} lines each)`);
      const b = summarize(base!);
      const ss = summarize(s!);
      row('ours, MCP over stdio', ss, b);
      row('baseline, 2 execFile spawns/session', b);
      target('batch_inspect >= 10x faster than baseline', `${(b.p50 / ss.p50).toFixed(1)}x faster`, b.p50 / ss.p50 >= 10);
    }

    if (only.has('hops')) {
      const floor = await openControlFloor(tmux.socketName, names[0]!, spawnEnv);
      const pingRaw: number[] = [];
      const rawMcp = rawMcpCaller(port, httpTransport, token);
      const rawPing = () => rawMcp('ping');
      // Checked like the SDK client's tail (check): a tool error must not be timed as a read.
      const rawTail = async (name: string) => {
        const reply = (await rawMcp('tools/call', { name: 'terminal_tail', arguments: { session: name, lines: TAIL_LINES } })) as { result?: ToolResult };
        if (reply.result === undefined) throw new Error(`tool call failed: ${JSON.stringify(reply).slice(0, 200)}`);
        return check(reply.result);
      };
      const mcpHRaw: number[] = [];
      const [pingS, pingH, empty, emptyHttp, read, readHttp, capture, mcpS, mcpH, listCm, listBroker, listS, listH] = [[], [], [], [], [], [], [], [], [], [], [], [], []] as number[][];
      const httpGet = httpGetter(join(broker.socketDir, 'gateway.sock'));
      const tailPath = (name: string) => `/sessions.tail?input=${encodeURIComponent(JSON.stringify({ session: name, lines: TAIL_LINES }))}`;
      for (let i = 0; i < 20; i++) await floor.run(`capture-pane -p -J -t ${panes[i % SESSIONS]} -S -${TAIL_LINES + 32}`);
      for (let i = 0; i < ITER; i++) {
        const idx = i % SESSIONS;
        await time(pingS!, () => stdio.ping());
        await time(pingH!, () => http.ping());
        await time(pingRaw, rawPing);
        await time(empty!, () => direct.health.info.query());
        await time(emptyHttp!, () => httpGet('/health.info'));
        await time(read!, () => direct.sessions.tail.query({ session: names[idx]!, lines: TAIL_LINES }));
        await time(readHttp!, () => httpGet(tailPath(names[idx]!)));
        // The broker captures the window plus 32 rows of context (policy/pane-window.ts).
        await time(capture!, () => floor.run(`capture-pane -p -J -t ${panes[idx]} -S -${TAIL_LINES + 32}`));
        await time(mcpS!, () => tail(stdio, names[idx]!));
        await time(mcpH!, () => tail(http, names[idx]!));
        await time(mcpHRaw, () => rawTail(names[idx]!));
        await time(listCm!, () => Promise.all(BROKER_LIST_COMMANDS.map((c) => floor.run(c))));
        await time(listBroker!, () => direct.sessions.list.query({}));
        await time(listS!, () => list(stdio));
        await time(listH!, () => list(http));
      }
      await floor.close();
      section('hops (terminal_tail 200 lines)');
      const st = Object.fromEntries(Object.entries({ pingS, pingH, empty, emptyHttp, read, readHttp, capture, mcpS, mcpH, listCm, listBroker, listS, listH }).map(([k, v]) => [k, summarize(v!)])) as Record<string, Stats>;
      row('MCP ping, stdio', st.pingS!);
      row('MCP ping, HTTP', st.pingH!);
      const raw = summarize(pingRaw);
      row('  same, node:http POST (no SDK client)', raw);
      console.log(`  HTTP client share (SDK client + fetch) p50: ${ms(st.pingH!.p50 - raw.p50)}`);
      row('empty broker call (health.info)', st.empty!);
      row('  same over HTTP/1.1 keep-alive', st.emptyHttp!);
      row('broker read (sessions.tail, socket)', st.read!);
      row('  same over HTTP/1.1 keep-alive', st.readHttp!);
      row('control-mode capture alone', st.capture!);
      row('MCP terminal_tail, stdio', st.mcpS!);
      row('MCP terminal_tail, HTTP', st.mcpH!);
      const tailRaw = summarize(mcpHRaw);
      row('  same, node:http POST (no SDK client)', tailRaw);
      console.log(`  HTTP client share of the tail (SDK client + fetch) p50: ${ms(st.mcpH!.p50 - tailRaw.p50)}`);
      console.log(`  gateway handling (tail - broker read) p50: stdio ${ms(st.mcpS!.p50 - st.read!.p50)}   HTTP ${ms(st.mcpH!.p50 - st.read!.p50)}`);
      console.log(`  broker work (read - empty call) p50:   ${ms(st.read!.p50 - st.empty!.p50)}`);
      console.log(`  floor (capture + MCP ping) p50:          stdio ${ms(st.capture!.p50 + st.pingS!.p50)}   HTTP ${ms(st.capture!.p50 + st.pingH!.p50)}`);
      section(`hops (terminal_list_sessions, ${SESSIONS} sessions)`);
      row('control-mode listing alone (same cmds)', st.listCm!);
      row('broker list (sessions.list, socket)', st.listBroker!);
      row('MCP terminal_list_sessions, stdio', st.listS!);
      row('MCP terminal_list_sessions, HTTP', st.listH!);
      console.log(`  broker work (list - empty call - listing) p50: ${ms(st.listBroker!.p50 - st.empty!.p50 - st.listCm!.p50)}`);
      console.log(`  gateway handling (list - broker list) p50: stdio ${ms(st.listS!.p50 - st.listBroker!.p50)}   HTTP ${ms(st.listH!.p50 - st.listBroker!.p50)}`);
      console.log(`  floor (listing + MCP ping) p50:           stdio ${ms(st.listCm!.p50 + st.pingS!.p50)}   HTTP ${ms(st.listCm!.p50 + st.pingH!.p50)}`);
    }

    if (only.has('idle') || only.has('live')) {
      const live = createBrokerLiveClient({ role: 'web', socketPath: join(broker.socketDir, 'web.sock'), actor: () => 'bench' });
      const closeLive = owned.add('the live client', () => live.close());
      // Live output is served to a signed-in operator only.
      // The password rules refuse one that contains the user name (webauth/passwords.ts).
      await createOperatorAccount(broker.env, OPERATOR.username, OPERATOR.password);
      const operatorSession = (await live.client.auth.login.mutate({ ...OPERATOR, sourceIp: '127.0.0.1' })).token;
      if (only.has('idle')) {
        let frames = 0;
        const sub = live.client.live.paneOutput.subscribe({ session: names[0]!, operatorSession }, { onData: () => frames++, onError: (e) => console.error('subscription failed', e) });
        while (frames === 0) await new Promise((r) => setTimeout(r, 50));
        console.error('idle: first frame');
        await new Promise((r) => setTimeout(r, 2_000));
        const before = cpuSeconds(broker.pid);
        const started = Date.now();
        await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
        const cpu = ((cpuSeconds(broker.pid) - before) / ((Date.now() - started) / 1000)) * 100;
        sub.unsubscribe();
        section(`idle (${SESSIONS} idle sessions, one live subscription, ${IDLE_SECONDS} s)`);
        console.log(`  broker CPU                          ${cpu.toFixed(2)} %   (frames during the window: ${frames - 1})`);
        target('idle broker CPU <= 1%', `${cpu.toFixed(2)} %`, cpu <= 1);
      }
      if (only.has('live')) {
        await tmux.newSession('agent-clock', CLOCK_COMMAND, { width: 120, height: 30 });
        const lat: number[] = [];
        const seen = new Set<string>();
        let first = true;
        const sub = live.client.live.paneOutput.subscribe(
          { session: 'agent-clock', operatorSession },
          {
            onData: (frame: PaneLiveEvent) => {
              // A local session's stream sends screens only (`unavailable` is a node's).
              if (frame.type !== 'screen') return;
              const at = wallMs();
              const fresh = newMarks(frame.data, seen, at);
              // The first frame is the screen as it was: its marks are old.
              if (!first) lat.push(...fresh.slice(-1));
              first = false;
            },
            onError: (e) => console.error('subscription failed', e),
          },
        );
        while (lat.length < LIVE_SAMPLES) await new Promise((r) => setTimeout(r, 100));
        sub.unsubscribe();
        await tmux.tmux(['kill-session', '-t', '=agent-clock']);
        section('live output (pane prints -> live.paneOutput frame on web.sock)');
        const s = summarize(lat);
        row('broker subscription', s);
        if (!only.has('browser')) target('live p50 <= 100 ms (broker subscription, not the browser)', `${s.p50.toFixed(1)} ms`, s.p50 <= 100);
      }
      await closeLive();
    }

    if (only.has('notes')) {
      const notes = await benchNoteSearch(http, { notes: NOTES, calls: NOTE_SEARCH_CALLS });
      section(`note_search (${notes.notes} notes in notes.db, FTS5 bm25, ${notes.hitsPerQuery.toFixed(1)} hits per query, limit 10)`);
      row('ours, MCP over HTTP', notes.search);
    }

    if (only.has('scale')) {
      const rssBefore = rssMb(broker.pid);
      for (let i = SESSIONS; i < SCALE_SESSIONS; i++) await addSession(i);
      await new Promise((r) => setTimeout(r, 1_000));
      for (let i = 0; i < 10; i++) await list(stdio);
      // A tail of every session, so the broker holds whatever per-session state it keeps.
      for (const name of names) await tail(stdio, name);
      await listBench(`${SCALE_SESSIONS} sessions`, SCALE_SESSIONS, Math.max(20, Math.round(ITER / 4)));
      const rss = rssMb(broker.pid);
      console.log(`  broker RSS at ${SESSIONS} sessions (after the sections above) ${rssBefore.toFixed(1)} MB, at ${SCALE_SESSIONS} sessions ${rss.toFixed(1)} MB`);
      const parts = memoryParts(broker.pid);
      console.log(`    of which file-backed (node's code, shared) ${parts.fileMb.toFixed(1)} MB, anonymous ${parts.anonMb.toFixed(1)} MB; Pss ${parts.pssMb.toFixed(1)} MB; node flags: ${BROKER_NODE_FLAGS.join(' ')}`);
      target(`broker RSS <= 120 MB at ${SCALE_SESSIONS} sessions`, `${rss.toFixed(1)} MB`, rss <= 120);
    }

    // Stopped before the standalone sections start their own stacks.
    await owned.run();
  }

  if (only.has('browser')) await browserLatency();
  if (only.has('redact')) {
    // The redactor alone (policy/redact.ts): BENCH_REDACT_BEFORE=<another build's dist/policy/redact.js> adds its figures.
    section(`redactor cost per 200 lines (redactSecrets, keepLines)${process.env.BENCH_REDACT_BEFORE ? ', before = BENCH_REDACT_BEFORE' : ''}`);
    for (const r of await benchRedactorCost(ITER)) {
      row(`after:  ${r.name}`, r.after);
      if (r.before) row(`before: ${r.name}`, r.before, undefined);
      if (r.before) console.log(`  ${''.padEnd(38)} after / before p50: ${(r.after.p50 / r.before.p50).toFixed(2)}x`);
    }
  }
  const BEFORE = process.env.BENCH_BEFORE;
  if (only.has('catalogue')) {
    const c = await benchCatalogue(BEFORE);
    section(`catalogue: tools/list bytes as an SDK client receives them${BEFORE ? `; before = BENCH_BEFORE (${BEFORE})` : ''}`);
    const line = (label: string, after: { bytes: number; tools: number }, before?: { bytes: number; tools: number }) =>
      console.log(`  ${label.padEnd(44)} ${String(after.bytes).padStart(6)} B ${String(after.tools).padStart(2)} tools${before ? `   before ${String(before.bytes).padStart(6)} B ${String(before.tools).padStart(2)} tools   after/before ${(after.bytes / before.bytes).toFixed(2)}x` : ''}`);
    line('gateway, every toolset', c.gateway, c.before?.gateway);
    line('gateway, default (new client)', c.gatewayDefault, c.before?.gateway);
    line('  same, read-only token', c.gatewayDefault.readOnly, c.before?.gateway);
    line('observer', c.observer, c.before?.observer);
    console.log('  every toolset combination (core always in): bytes, read-only token, tools');
    for (const x of c.combinations) console.log(`    ${String(x.bytes).padStart(6)}  ${String(x.readOnlyBytes).padStart(6)}  ${String(x.tools).padStart(2)}  ${x.toolsets.join('+')}`);
    target('default gateway catalogue <= 25 KB', `${c.gatewayDefault.bytes} B`, c.gatewayDefault.bytes <= 25_000);
  }
  if (only.has('answers')) {
    const sizes = (process.env.BENCH_ANSWER_SESSIONS ?? '50,200').split(',').map(Number).filter((n) => n > 0);
    const rows = await benchListAnswers(sizes, BEFORE ? { beforeRoot: BEFORE } : {});
    section(`list answers: bytes as an SDK client receives them (text + structuredContent; gateway over stdio, observer in process)${BEFORE ? `; before = BENCH_BEFORE (${BEFORE}, gateway only)` : ''}`);
    const cell = (b: AnswerBytes) => `${String(b.total).padStart(6)} B (text ${String(b.text).padStart(6)}, structured ${String(b.structured).padStart(6)})`;
    console.log(`  ${'tool'.padEnd(36)} ${'sessions'.padStart(8)}  ${'fixture'.padEnd(36)} answer`);
    for (const r of rows) {
      const before = r.before ? `   before ${cell(r.before)}   after/before ${(r.after.total / r.before.total).toFixed(2)}x` : '';
      console.log(`  ${r.tool.padEnd(36)} ${String(r.sessions).padStart(8)}  ${r.fixture.slice(0, 36).padEnd(36)} ${cell(r.after)}${before}`);
    }
    const at50 = rows.find((r) => r.tool === 'terminal_list_sessions' && r.sessions === 50);
    if (at50) target('terminal_list_sessions at 50 sessions <= 6 KB', `${at50.after.total} B`, at50.after.total <= 6_000);
  }
  if (only.has('run')) {
    const rows = await benchRunCommand(owned, Number(process.env.BENCH_RUN_ITER ?? 30));
    section('run: terminal_run (stdio SDK client) vs naive send-keys of bash -c + capture-pane every 100 ms');
    for (const r of rows) {
      row(`terminal_run ${JSON.stringify(r.command)}`, r.ours);
      row(`naive        ${JSON.stringify(r.command)}`, r.naive);
      console.log(`  ${''.padEnd(38)} naive / terminal_run p50: ${(r.naive.p50 / r.ours.p50).toFixed(1)}x`);
      row(`naive, one send-keys ${JSON.stringify(r.command)}`, r.naive1);
      console.log(`  ${''.padEnd(38)} naive (one send-keys) / terminal_run p50: ${(r.naive1.p50 / r.ours.p50).toFixed(1)}x`);
      target(`terminal_run ${JSON.stringify(r.command)} >= 5x faster than naive (p50)`, `${(r.naive.p50 / r.ours.p50).toFixed(1)}x`, r.naive.p50 >= 5 * r.ours.p50);
    }
  }
  if (only.has('nodes')) {
    const why = sshdUnavailable();
    if (why !== undefined) console.log(`\nnodes: skipped (${why})`);
    else {
      const r = await benchNodes(owned, Number(process.env.BENCH_NODES_ITER ?? 30), Number(process.env.BENCH_NODES_IDLE_SECONDS ?? 30), () => failHere('nodes'));
      section(`nodes: ${BENCH_NODES} nodes x ${BENCH_NODE_SESSIONS} sessions over a real sshd on loopback (broker calls on gateway.sock)`);
      row('tail 200 lines, this host', r.localTail);
      row('tail 200 lines, node n01 (kept ssh)', r.remoteTail);
      row('ssh host tmux capture-pane per read', r.sshSpawnTail);
      row(`list ${r.listedSessions} sessions, ${BENCH_NODES + 1} nodes`, r.list);
      row('send_text to cat, this host, control client', r.sendLocal);
      row('send_text to cat, this host, spawned (a tab)', r.sendLocalSpawned);
      row('send_text to cat, node n01, control client', r.sendNode);
      row('send_text to cat, node n01, ssh channel (a tab)', r.sendNodeSpawned);
      row('run `true` in bash, this host', r.runLocal);
      row('run `true` in bash, node n01', r.runNode);
      console.log(`  ssh processes of the broker: ${r.sshProcesses}, ${r.sshRssMb.toFixed(1)} MB resident together`);
      console.log(`  broker RSS ${r.rssMb.toFixed(1)} MB; idle CPU ${r.idleCpuPercent.toFixed(2)} % over ${r.idleSeconds} s with ${BENCH_NODES} nodes connected`);
      target('remote tail / local tail <= 1.5x (p50)', `${(r.remoteTail.p50 / r.localTail.p50).toFixed(2)}x`, r.remoteTail.p50 <= 1.5 * r.localTail.p50);
      console.log(`  send ratios (p50): this host control/spawned ${(r.sendLocal.p50 / r.sendLocalSpawned.p50).toFixed(2)}x, node control/ssh channel ${(r.sendNode.p50 / r.sendNodeSpawned.p50).toFixed(2)}x`);
      target('remote tail / ssh capture-pane per read <= 0.2x (p50)', `${(r.remoteTail.p50 / r.sshSpawnTail.p50).toFixed(2)}x`, r.remoteTail.p50 <= 0.2 * r.sshSpawnTail.p50);
    }
  }
  if (only.has('hosts')) {
    const why = sshdUnavailable();
    if (why !== undefined) console.log(`\nhosts: skipped (${why})`);
    else {
      const r = await benchHosts(owned, Number(process.env.BENCH_HOSTS_ITER ?? 30), Number(process.env.BENCH_HOSTS_IDLE_SECONDS ?? 30), () => failHere('hosts'));
      section(`hosts: ${r.nodes} nodes x ${(r.sessions - 10) / r.nodes} sessions + 10 here (${r.sessions} sessions), one loopback sshd, one broker (calls on gateway.sock)`);
      console.log(`  every node up ${ms(r.upFromSpawnMs)} after the broker's spawn (${ms(r.upFromListeningMs)} after it was built and attached to tmux)`);
      row(`list ${r.sessions} sessions in one call (${(r.listBytes / 1024).toFixed(0)} KiB)`, r.list);
      row('tail 200 lines, node h001', r.tail);
      console.log(`  broker RSS ${r.rssMb.toFixed(1)} MB; its ssh processes: ${r.sshProcesses}, ${r.sshRssMb.toFixed(1)} MB resident together`);
      console.log(`  the far end (sshd, its connection processes and the remote tmux clients): ${r.sshdProcesses} processes, ${r.sshdRssMb.toFixed(1)} MB`);
      console.log(`  broker idle CPU ${r.idleCpuPercent.toFixed(2)} % over ${r.idleSeconds} s with ${r.nodes} nodes connected`);
      console.log(`  failed calls: ${r.failures.length}${r.failures.length > 0 ? ` (first: ${r.failures.slice(0, 3).join('; ')})` : ''}`);
      target(`every one of ${r.nodes} nodes up within 60 s of the spawn`, ms(r.upFromSpawnMs), r.upFromSpawnMs <= 60_000);
      target(`list of ${r.sessions} sessions p50 <= 150 ms`, ms(r.list.p50), r.list.p50 <= 150);
      target(`idle CPU with ${r.nodes} nodes <= 3 %`, `${r.idleCpuPercent.toFixed(2)} %`, r.idleCpuPercent <= 3);
      target('no call failing', String(r.failures.length), r.failures.length === 0);
    }
  }
  if (only.has('supervisor')) {
    // Its own broker and tmux server: a watch on a pane that prints a [y/N] prompt.
    const s = await measureSupervisorLatency(owned);
    section('supervisor: prompt on screen -> attention_required event (broker in process, real tmux)');
    console.log(`  p50 ${ms(s.p50)}   p99 ${ms(s.p99)}   (n=${s.n})`);
    target('supervisor attention event within about 1 s of the prompt (p50)', ms(s.p50), s.p50 <= 1000);
  }

  console.log(`\ntargets   [${load()}]`);
  for (const r of results) {
    console.log(`  ${r.met ? 'met    ' : 'NOT met'}  ${r.target.padEnd(62)} ${r.figure}`);
    if (r.detail !== undefined) console.log(`           ${r.detail}`);
  }
}

/** Pane output -> the dashboard's xterm rows in headless Chromium, against the production
 * web build; the page notes when each new MARK line appears in the DOM. */
async function browserLatency(): Promise<void> {
  const stack = await startWebStack();
  const stopStack = owned.add('the web stack', () => stack.stop());
  try {
    await stack.tmux.newSession('claude-clock', CLOCK_COMMAND, { width: 120, height: 30 });
    const context = await stack.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInFirstTime(page, stack);
    const rows = page.locator('article.session[data-session="claude-clock"] .xterm-rows');
    await rows.waitFor({ timeout: 60_000 });
    await page.evaluate(`(() => {
      const rows = document.querySelector('article.session[data-session="claude-clock"] .xterm-rows');
      const seen = new Set(); window.__lat = []; let first = true;
      const scan = () => {
        const at = performance.timeOrigin + performance.now();
        const fresh = [];
        for (const m of rows.textContent.matchAll(/MARK (\\d{19})/g)) {
          if (seen.has(m[1])) continue;
          seen.add(m[1]);
          fresh.push(at - Number(BigInt(m[1]) / 1000n) / 1000);
        }
        if (!first && fresh.length) window.__lat.push(fresh[fresh.length - 1]);
        first = false;
      };
      scan();
      new MutationObserver(scan).observe(rows, { subtree: true, childList: true, characterData: true });
    })()`);
    let lat: number[] = [];
    while (lat.length < LIVE_SAMPLES) {
      await new Promise((r) => setTimeout(r, 500));
      lat = (await page.evaluate('window.__lat')) as number[];
    }
    section('live output (pane prints -> dashboard xterm rows in headless Chromium)');
    const s = summarize(lat);
    row('browser frame', s);
    target('live p50 <= 100 ms (real browser)', `${s.p50.toFixed(1)} ms`, s.p50 <= 100);
  } finally {
    await stopStack();
  }
}

/** SIGTERM to a child we spawned, SIGKILL if it is still there after 10 s. */
async function stopChild(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

// Ctrl-C or a SIGTERM stops what the run started before the bench exits.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping what the run started`);
    void owned.run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

main().then(
  () => owned.run(),
  async (err: unknown) => {
    console.error(err);
    await owned.run();
    process.exit(1);
  },
);
