/**
 * `npm run bench`: our read path against the baseline of spawning one tmux process per
 * read (what the original Terminal MCP did), measured side by side in one run on one
 * private tmux server with 50 sessions.
 *
 *   ours:     MCP client -> gateway (Streamable HTTP, and stdio) -> broker socket -> tmux control mode
 *   baseline: execa('tmux', ['capture-pane', ...]) per read, sequentially
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoPath, startBrokerProcess, startTmuxServer } from '@terminal-mcp/test';
import { execa } from 'execa';
import { spawn } from 'node:child_process';
import { benchNoteSearch } from './notes.js';
import { summarize, time, type Stats } from './stats.js';

const SESSIONS = 50;
const TAIL_CALLS = Number(process.env.BENCH_TAIL_CALLS ?? 300);
const BATCH_CALLS = Number(process.env.BENCH_BATCH_CALLS ?? 40);
const BATCH_SIZE = 25;
const TAIL_LINES = 50;
const BATCH_LINES = 10;
const NOTES = Number(process.env.BENCH_NOTES ?? 10_000);
const NOTE_SEARCH_CALLS = Number(process.env.BENCH_NOTE_SEARCH_CALLS ?? 300);

function fmt(s: Stats): string {
  return `p50 ${s.p50.toFixed(2).padStart(7)} ms   p99 ${s.p99.toFixed(2).padStart(7)} ms   (n=${s.n})`;
}

async function waitForPort(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = buf.match(/http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      if (m) {
        child.stderr!.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${buf}`)));
  });
}

async function main(): Promise<void> {
  const tmux = await startTmuxServer();
  const names: string[] = [];
  const panes: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const name = `agent-${String(i).padStart(2, '0')}`;
    const s = await tmux.newSession(name, `bash --norc --noprofile -c 'for i in $(seq 1 300); do echo "line $i of ${name}: lorem ipsum dolor sit amet"; done; exec sleep 100000'`, { width: 160, height: 50 });
    names.push(name);
    panes.push(s.paneId);
  }
  await new Promise((r) => setTimeout(r, 500));
  const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn' } });
  const gateway = spawn(process.execPath, [repoPath('services/gateway/dist/bin/http.js')], {
    env: { ...broker.env, TERMINAL_MCP_GATEWAY_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await waitForPort(gateway);

  const http = new Client({ name: 'bench-http', version: '1' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const stdio = new Client({ name: 'bench-stdio', version: '1' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [repoPath('services/gateway/dist/bin/stdio.js')], env: broker.env as Record<string, string>, stderr: 'ignore' }));

  const tmuxArgs = ['-L', tmux.socketName];
  const spawnEnv = { ...process.env };
  delete spawnEnv.TMUX;
  delete spawnEnv.TMUX_PANE;
  const spawnTmux = (args: string[]) => execa('tmux', [...tmuxArgs, ...args], { env: spawnEnv, extendEnv: false });

  const check = (r: Awaited<ReturnType<Client['callTool']>>) => {
    if (r.isError) throw new Error(`tool failed: ${JSON.stringify(r.content)}`);
    return r;
  };

  // Warm up every path (JIT, connections, control client).
  for (let i = 0; i < 20; i++) {
    const name = names[i % SESSIONS]!;
    check(await http.callTool({ name: 'terminal_tail', arguments: { session: name, lines: TAIL_LINES } }));
    check(await stdio.callTool({ name: 'terminal_tail', arguments: { session: name, lines: TAIL_LINES } }));
    await spawnTmux(['capture-pane', '-p', '-J', '-t', panes[i % SESSIONS]!, '-S', `-${TAIL_LINES}`]);
  }

  const tailHttp: number[] = [];
  const tailStdio: number[] = [];
  const tailSpawn: number[] = [];
  for (let i = 0; i < TAIL_CALLS; i++) {
    const idx = i % SESSIONS;
    // Interleave so machine noise hits every path alike.
    await time(tailHttp, async () => check(await http.callTool({ name: 'terminal_tail', arguments: { session: names[idx]!, lines: TAIL_LINES } })));
    await time(tailStdio, async () => check(await stdio.callTool({ name: 'terminal_tail', arguments: { session: names[idx]!, lines: TAIL_LINES } })));
    await time(tailSpawn, () => spawnTmux(['capture-pane', '-p', '-J', '-t', panes[idx]!, '-S', `-${TAIL_LINES}`]));
  }

  const batchHttp: number[] = [];
  const batchSpawn: number[] = [];
  for (let i = 0; i < BATCH_CALLS; i++) {
    const offset = (i * 7) % (SESSIONS - BATCH_SIZE);
    const batch = names.slice(offset, offset + BATCH_SIZE);
    const batchPanes = panes.slice(offset, offset + BATCH_SIZE);
    await time(batchHttp, async () => {
      const r = check(await http.callTool({ name: 'terminal_batch_inspect', arguments: { sessions: batch, lines: BATCH_LINES } }));
      const results = (r.structuredContent as { results: { ok: boolean }[] }).results;
      if (results.length !== BATCH_SIZE || !results.every((x) => x.ok)) throw new Error('batch inspect incomplete');
    });
    // Baseline: per session, one spawn for the facts status needs and one for the text.
    await time(batchSpawn, async () => {
      for (const pane of batchPanes) {
        await spawnTmux(['display-message', '-p', '-t', pane, '#{session_name}\t#{pane_current_command}\t#{pane_in_mode}\t#{session_activity}']);
        await spawnTmux(['capture-pane', '-p', '-J', '-t', pane, '-S', `-${BATCH_LINES}`]);
      }
    });
  }

  const notes = await benchNoteSearch(http, { notes: NOTES, calls: NOTE_SEARCH_CALLS });

  const th = summarize(tailHttp);
  const ts = summarize(tailStdio);
  const tb = summarize(tailSpawn);
  const bh = summarize(batchHttp);
  const bb = summarize(batchSpawn);
  const ratio = (base: Stats, ours: Stats) => `${(base.p50 / ours.p50).toFixed(1)}x`;
  console.log(`
Terminal MCP bench: ${SESSIONS} sessions on a private tmux server, node ${process.version}
terminal_tail (${TAIL_LINES} lines)
  ours, MCP over HTTP          ${fmt(th)}
  ours, MCP over stdio         ${fmt(ts)}
  baseline, spawn tmux/read    ${fmt(tb)}
  ratio baseline/ours p50      http ${ratio(tb, th)}   stdio ${ratio(tb, ts)}
terminal_batch_inspect (${BATCH_SIZE} sessions, ${BATCH_LINES} lines each)
  ours, MCP over HTTP          ${fmt(bh)}
  baseline, 2 spawns/session   ${fmt(bb)}
  ratio baseline/ours p50      ${ratio(bb, bh)}
note_search (${notes.notes} notes in notes.db, FTS5 bm25, ${notes.hitsPerQuery.toFixed(1)} hits per query, limit 10)
  ours, MCP over HTTP          ${fmt(notes.search)}
targets: tail p50 < 3 ms (${th.p50 < 3 && ts.p50 < 3 ? 'met' : th.p50 < 3 || ts.p50 < 3 ? 'met on one transport' : 'NOT met'}); batch inspect >= 5x faster than spawning (${bb.p50 / bh.p50 >= 5 ? 'met' : 'NOT met'})
`);

  await http.close();
  await stdio.close();
  gateway.kill('SIGTERM');
  await broker.stop();
  await tmux.kill();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
