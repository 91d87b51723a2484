/**
 * Every list-shaped answer of the gateway and the observer as a real MCP SDK client
 * receives it (issue 31: a model pays for each byte), on realistic fixtures: the varied
 * session mix (varied-sessions.ts) on a private tmux server, 50 notes, 50 input-audit rows,
 * a binding and a supervisor watch per readable session, and a git repository with 60
 * commits, 20 branches and tags, 20 changed paths. The gateway is the built stdio binary
 * (so the bench can point it at another checkout's build); the observer's server runs in
 * this process over an in-memory transport, as the catalogue measurement does.
 * Used by test/src/answer-bytes.test.ts (budgets) and `npm run bench -- --only answers`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { GATEWAY_TOOLSETS } from '@terminal-mcp/contract';
import { createObserverMcpServer } from '@terminal-mcp/observer';
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { createOperatorAccount } from './operator-account.js';
import { repoPath } from './repo.js';
import { git } from './source-repo.js';
import { startTmuxServer, type TmuxTestServer } from './tmux-server.js';
import { addVariedSessions, VARIED_SESSIONS_CONFIG, variedSessionName } from './varied-sessions.js';

export interface AnswerBytes {
  /** What travels: content plus structuredContent, serialized. */
  total: number;
  text: number;
  structured: number;
}

export const answerBytes = (r: CallToolResult): AnswerBytes => ({
  total: Buffer.byteLength(JSON.stringify({ content: r.content, ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}) })),
  text: Buffer.byteLength(r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')),
  structured: r.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(r.structuredContent)),
});

export const answerText = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** One list-shaped call, what it lists in the fixture, and which server answers it. */
export interface ListCall {
  server: 'gateway' | 'observer';
  tool: string;
  args: Record<string, unknown>;
  /** The fixture rows it answers about, for the table. */
  fixture: string;
  /** Depends on the number of sessions (measured at each size). */
  perSessions?: boolean;
}

export const SOURCE_PROJECT = 'demo';
const SOURCE_FILES = 40;
const SOURCE_COMMITS = 60;

/** Every list-shaped call the fixture answers. answer-bytes.test.ts checks that each
 * list-shaped tool of both servers (derived from the tool tables) is here or exempted. */
export const LIST_CALLS: readonly ListCall[] = [
  { server: 'gateway', tool: 'terminal_list_sessions', args: {}, fixture: 'sessions', perSessions: true },
  { server: 'gateway', tool: 'terminal_batch_inspect', args: {}, fixture: 'first 25 readable, 10 lines', perSessions: true },
  { server: 'gateway', tool: 'terminal_list_input_audit', args: { limit: 50 }, fixture: '50 attempts' },
  { server: 'gateway', tool: 'terminal_list_bindings', args: {}, fixture: 'a binding per readable session (<=100)', perSessions: true },
  { server: 'gateway', tool: 'note_list', args: { limit: 50 }, fixture: '50 notes' },
  { server: 'gateway', tool: 'note_search', args: { query: 'fixture', limit: 50 }, fixture: '50 hits' },
  { server: 'gateway', tool: 'note_facets', args: {}, fixture: '50 notes, 5 statuses, 12 tags, 6 projects' },
  { server: 'gateway', tool: 'supervisor_list_watches', args: {}, fixture: 'a watch per readable session (<=100)', perSessions: true },
  { server: 'gateway', tool: 'supervisor_list_events', args: { limit: 50 }, fixture: 'the watches\' events (about 30-40)' },
  { server: 'gateway', tool: 'supervisor2_list_actionable_events', args: { limit: 50 }, fixture: 'actionable events' },
  { server: 'gateway', tool: 'supervisor2_list_actions', args: { limit: 50 }, fixture: 'actions' },
  { server: 'gateway', tool: 'supervisor_wait_events', args: { after_id: 0, timeout_s: 0 }, fixture: 'every event since 0' },
  { server: 'gateway', tool: 'supervisor_run_once', args: {}, fixture: 'a pass over every watch', perSessions: true },
  { server: 'observer', tool: 'source_list_projects', args: {}, fixture: '3 projects' },
  { server: 'observer', tool: 'source_git_status', args: { project: SOURCE_PROJECT }, fixture: '20 changed paths' },
  { server: 'observer', tool: 'source_git_log', args: { project: SOURCE_PROJECT, limit: 50 }, fixture: '50 commits' },
  { server: 'observer', tool: 'source_list_refs', args: { project: SOURCE_PROJECT }, fixture: '11 branches, 10 tags' },
  { server: 'observer', tool: 'source_blame', args: { project: SOURCE_PROJECT, path: 'src/module-0.ts', start_line: 1, end_line: 50 }, fixture: '50 lines' },
  { server: 'observer', tool: 'source_list_files', args: { project: SOURCE_PROJECT, recursive: true, limit: 50 }, fixture: '40 files' },
  { server: 'observer', tool: 'source_search', args: { project: SOURCE_PROJECT, query: 'export function', max_results: 50 }, fixture: '50 matches' },
  { server: 'observer', tool: 'source_show_commit', args: { project: SOURCE_PROJECT, rev: 'HEAD~1' }, fixture: 'one commit, 2 files' },
  { server: 'observer', tool: 'source_diff', args: { project: SOURCE_PROJECT }, fixture: 'working tree, 20 files' },
];

const USER = 'answers';
const PASSWORD = 'compact rows passphrase 31';
/** A client may hold at most 100 bindings (the broker's limit): the first 100 readable sessions get one. */
const MAX_BINDINGS = 100;
const NOTE_TAGS = ['idea', 'bug', 'perf', 'ux', 'docs', 'infra', 'tmux', 'mcp', 'agent', 'security', 'later', 'vi'];
const NOTE_PROJECTS = ['terminal-mcp', 'dashboard', 'observer', 'broker', 'bench', 'docs'];
const NOTE_STATUSES = ['new', 'exploring', 'planned', 'applied', 'dropped'];

/** A git repository with history, refs and working-tree changes, with fixed dates. */
function makeHistoryRepo(base: string): string {
  const root = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  git(root, home, ['init', '-q', '-b', 'main']);
  const authors = ['Ada Author', 'Bo Builder', 'Chi Nguyen', 'Dee Reviewer'];
  const module = (i: number, rev: number) =>
    Array.from({ length: 60 }, (_, l) => (l % 6 === 0 ? `export function part${l}_${i}(x: number): number {` : l % 6 === 5 ? '}' : `  return x + ${l} * ${rev}; // module ${i} line ${l}`)).join('\n') + '\n';
  for (let c = 0; c < SOURCE_COMMITS; c++) {
    const date = new Date(Date.UTC(2024, 0, 1 + c, 9, c)).toISOString();
    const touched = c < SOURCE_FILES ? [c] : [c % SOURCE_FILES, (c * 7) % SOURCE_FILES];
    for (const i of touched) {
      const path = i % 4 === 3 ? `docs/page-${i}.md` : `src/module-${i}.ts`;
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), i % 4 === 3 ? `# Page ${i}\n\nRevision ${c}.\n` : module(i, c));
    }
    git(root, home, ['add', '-A']);
    const author = authors[c % authors.length]!;
    git(root, home, ['-c', `user.name=${author}`, 'commit', '-q', '--author', `${author} <${author.split(' ')[0]!.toLowerCase()}@example.test>`, '-m', `Change ${touched.map((i) => `module ${i}`).join(' and ')} (step ${c})`], date);
    if (c % 6 === 5) git(root, home, ['tag', `v0.${c}`]);
    if (c % 6 === 2) git(root, home, ['branch', `topic-${c}`]);
  }
  for (let i = 0; i < 20; i++) {
    const path = i % 4 === 3 ? `docs/page-${i}.md` : `src/module-${i}.ts`;
    writeFileSync(join(root, path), i % 4 === 3 ? `# Page ${i}\n\nEdited.\n` : module(i, 999));
  }
  return root;
}

export interface ListAnswersFixture {
  broker: BrokerProcess;
  tmux: TmuxTestServer;
  /** Grows the session mix to `n` sessions, then gives each readable session (the first 100) a binding and a watch. */
  growTo(n: number): Promise<void>;
  /** Calls one list-shaped tool through the gateway at `gatewayBin` (default this checkout's) or the observer. */
  call(c: ListCall, via?: 'after' | 'before'): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function stdioClient(bin: string, env: NodeJS.ProcessEnv): Promise<Client> {
  const client = new Client({ name: 'list-answers', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin], env: env as Record<string, string>, stderr: 'ignore' }));
  return client;
}

/** `beforeRoot`: the root of another built checkout whose stdio gateway answers the same calls ('before'). */
export async function startListAnswersFixture(opts: { beforeRoot?: string } = {}): Promise<ListAnswersFixture> {
  const base = mkdtempSync(join(tmpdir(), 'tmcp-answers-'));
  const started: { close(): Promise<unknown> }[] = [];
  try {
    return await startFixture(base, started, opts);
  } catch (err) {
    // Nothing started is left behind when the setup fails half-way.
    for (const s of started.reverse()) await s.close().catch(() => undefined);
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
}

async function startFixture(base: string, started: { close(): Promise<unknown> }[], opts: { beforeRoot?: string }): Promise<ListAnswersFixture> {
  const tmux = await startTmuxServer();
  started.push({ close: () => tmux.kill() });
  const repo = makeHistoryRepo(base);
  const broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    readyTimeoutMs: 90_000,
    config: {
      log_level: 'warn',
      ...VARIED_SESSIONS_CONFIG,
      gateway: { toolsets: { stdio: [...GATEWAY_TOOLSETS] } },
      observer: { source_roots: ['demo', 'demo-mirror', 'demo-docs'].map((name) => ({ name, path: repo })) },
    },
  });
  started.push({ close: () => broker.stop() });
  await createOperatorAccount(broker.env, USER, PASSWORD);
  const after = await stdioClient(repoPath('services/gateway/dist/bin/stdio.js'), broker.env);
  started.push(after);
  const before = opts.beforeRoot ? await stdioClient(join(opts.beforeRoot, 'services/gateway/dist/bin/stdio.js'), broker.env) : undefined;
  if (before) started.push(before);
  const observer = new Client({ name: 'list-answers-observer', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const observerServer = createObserverMcpServer({ broker: createBrokerClient({ role: 'observer', env: broker.env }), caller: { username: USER, clientId: 'tmcp_c_answers' } });
  await Promise.all([observerServer.connect(a), observer.connect(b)]);
  started.push(observer, observerServer);

  const must = async (name: string, args: Record<string, unknown>) => {
    const r = (await after.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError) throw new Error(`fixture: ${name} failed: ${answerText(r).slice(0, 300)}`);
    return r;
  };
  // 50 notes over 5 statuses, 12 tags and 6 projects, every one found by "fixture".
  for (let i = 0; i < 50; i++) {
    await must('note_create', {
      title: `Fixture idea ${i}: ${['cache the pane list', 'batch reads', 'shorter answers', 'retry on lease busy', 'mobile dashboard'][i % 5]}`,
      body: `Worth trying after the release. The fixture body of note ${i} says why in a sentence or two.`,
      tags: [NOTE_TAGS[i % NOTE_TAGS.length]!, NOTE_TAGS[(i * 5 + 1) % NOTE_TAGS.length]!],
      project: NOTE_PROJECTS[i % NOTE_PROJECTS.length],
      status: NOTE_STATUSES[i % NOTE_STATUSES.length],
    });
  }
  let made = 0;
  let auditDone = false;
  const bound = new Set<string>();
  const readable = (i: number) => !/^(build|notes)-/.test(variedSessionName(i));
  return {
    broker,
    tmux,
    async growTo(n) {
      await addVariedSessions(tmux, made, n);
      for (let i = made; i < n; i++) {
        const name = variedSessionName(i);
        if (!readable(i) || bound.has(name) || bound.size >= MAX_BINDINGS) continue;
        await must('terminal_bind', { binding: `b-${i}`, session: name, ...(name.startsWith('claude-') ? { input_enabled: true } : {}) });
        await must('supervisor_watch', { session: name });
        bound.add(name);
      }
      made = Math.max(made, n);
      if (!auditDone) {
        // 50 input attempts: dry runs into the sessions open to input, refusals elsewhere.
        for (let k = 0; k < 50; k++) {
          const i = k % 5 === 4 ? 1 + 5 * (k % 3) : 5 * (k % 4);
          const r = (await after.callTool({ name: 'terminal_send_text', arguments: { session: variedSessionName(i), text: `npm test -- --run part-${k}`, dry_run: true } })) as CallToolResult;
          if (i % 5 === 0 && r.isError) throw new Error(`fixture: dry run failed: ${answerText(r).slice(0, 300)}`);
        }
        auditDone = true;
      }
    },
    async call(c, via = 'after') {
      const client = c.server === 'observer' ? observer : via === 'before' ? before : after;
      if (!client) throw new Error('no before gateway: pass beforeRoot');
      const r = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      if (r.isError) throw new Error(`${c.tool} failed: ${answerText(r).slice(0, 300)}`);
      return r;
    },
    async close() {
      await after.close();
      await before?.close();
      await observer.close();
      await observerServer.close();
      await broker.stop();
      await tmux.kill();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export interface ListAnswerRow {
  tool: string;
  server: 'gateway' | 'observer';
  fixture: string;
  sessions: number;
  after: AnswerBytes;
  before?: AnswerBytes;
}

/** Every call of LIST_CALLS at each session count (those that do not depend on sessions once, at the first). */
export async function measureListAnswers(sizes: readonly number[], opts: { beforeRoot?: string } = {}): Promise<ListAnswerRow[]> {
  const fx = await startListAnswersFixture(opts);
  const rows: ListAnswerRow[] = [];
  try {
    const sorted = [...sizes].sort((x, y) => x - y);
    for (const [k, n] of sorted.entries()) {
      await fx.growTo(n);
      for (const c of LIST_CALLS) {
        if (k > 0 && !c.perSessions) continue;
        const after = answerBytes(await fx.call(c));
        const before = opts.beforeRoot && c.server === 'gateway' ? answerBytes(await fx.call(c, 'before')) : undefined;
        rows.push({ tool: c.tool, server: c.server, fixture: c.fixture, sessions: n, after, ...(before ? { before } : {}) });
      }
    }
  } finally {
    await fx.close();
  }
  return rows;
}
