/**
 * List answer sizes (issue 31): terminal_list_sessions and terminal_batch_inspect as a real
 * MCP SDK client receives them (text plus structuredContent), over stdio, on a realistic mix
 * of sessions (test/src/helpers/varied-sessions.ts) at each size asked. With BENCH_BEFORE
 * naming the root of another checkout, built, that build's stdio gateway answers the same
 * questions from the same broker in the same run (the broker's own answer did not change).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { addVariedSessions, repoPath, startBrokerProcess, startTmuxServer, VARIED_SESSIONS_CONFIG } from '@terminal-mcp/test';
import { join } from 'node:path';

export interface AnswerBytes {
  total: number;
  text: number;
  structured: number;
}
export interface AnswerRow {
  tool: string;
  sessions: number;
  after: AnswerBytes;
  before?: AnswerBytes;
}

const bytesOf = (r: CallToolResult): AnswerBytes => ({
  total: Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent })),
  text: Buffer.byteLength(r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')),
  structured: Buffer.byteLength(JSON.stringify(r.structuredContent ?? null)),
});

async function stdioClient(bin: string, env: NodeJS.ProcessEnv): Promise<Client> {
  const client = new Client({ name: 'bench-answers', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin], env: env as Record<string, string>, stderr: 'ignore' }));
  return client;
}

export async function benchListAnswers(sizes: readonly number[], beforeRoot?: string): Promise<AnswerRow[]> {
  const tmux = await startTmuxServer();
  const broker = await startBrokerProcess({ tmuxSocket: tmux.socketName, config: { log_level: 'warn', ...VARIED_SESSIONS_CONFIG }, readyTimeoutMs: 90_000 });
  const after = await stdioClient(repoPath('services/gateway/dist/bin/stdio.js'), broker.env);
  const before = beforeRoot ? await stdioClient(join(beforeRoot, 'services/gateway/dist/bin/stdio.js'), broker.env) : undefined;
  const call = async (client: Client, name: string, sessions: number): Promise<AnswerBytes> => {
    const r = (await client.callTool({ name, arguments: {} })) as CallToolResult;
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
    // Either shape: the compact table (rows) or the old one (sessions).
    const listed = r.structuredContent as { rows?: unknown[]; sessions?: unknown[] };
    if (name === 'terminal_list_sessions' && (listed.rows ?? listed.sessions)?.length !== sessions) throw new Error(`${name} listed ${(listed.rows ?? listed.sessions)?.length} sessions, expected ${sessions}`);
    return bytesOf(r);
  };
  const rows: AnswerRow[] = [];
  try {
    let made = 0;
    for (const n of [...sizes].sort((a, b) => a - b)) {
      await addVariedSessions(tmux, made, n);
      made = n;
      for (const tool of ['terminal_list_sessions', 'terminal_batch_inspect']) {
        rows.push({ tool, sessions: n, after: await call(after, tool, n), ...(before ? { before: await call(before, tool, n) } : {}) });
      }
    }
  } finally {
    await after.close();
    await before?.close();
    await broker.stop();
    await tmux.kill();
  }
  return rows;
}
