/**
 * The note_search section of `npm run bench`: as many notes as one client may hold (2,000) saved through note_create, then
 * note_search over MCP (HTTP) for one- and two-word queries, accents and no accents.
 * Notes are made from a fixed vocabulary with a seeded generator, so every run searches
 * the same corpus.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseRows } from '@terminal-mcp/test';
import { summarize, time, type Stats } from './stats.js';

const WORDS = [
  'tmux', 'broker', 'gateway', 'observer', 'sqlite', 'wal', 'fts5', 'bm25', 'cache', 'queue', 'retry', 'jitter', 'backoff', 'lease', 'audit',
  'binding', 'session', 'pane', 'socket', 'oauth', 'token', 'dashboard', 'kanban', 'gallery', 'deploy', 'preview', 'systemd', 'tunnel',
  'lưu', 'lại', 'ý', 'tưởng', 'hàng', 'đợi', 'bền', 'vững', 'tìm', 'kiếm', 'ghi', 'chú', 'dự', 'án', 'triển', 'khai', 'kiểm', 'tra',
  'latency', 'throughput', 'p50', 'p99', 'benchmark', 'index', 'shard', 'replica', 'snapshot', 'restore', 'backup', 'migration',
];
const QUERIES = ['sqlite', 'hang doi', 'lưu lại', 'retry jitter', 'bm25', 'deploy preview', 'kiem tra', 'snapshot restore', 'tmux pane', 'oauth token'];

/** mulberry32: a small deterministic generator. */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface NoteSearchBench {
  notes: number;
  search: Stats;
  hitsPerQuery: number;
}

export async function benchNoteSearch(client: Client, opts: { notes: number; calls: number; concurrency?: number }): Promise<NoteSearchBench> {
  const random = generator(12);
  const pick = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  const specs = Array.from({ length: opts.notes }, (_, i) => ({ title: `${pick(4)} ${i}`, body: pick(60), tags: [WORDS[i % 28]!] }));
  let next = 0;
  const worker = async () => {
    while (next < specs.length) {
      const spec = specs[next++]!;
      const r = await client.callTool({ name: 'note_create', arguments: spec });
      if (r.isError) throw new Error(`note_create failed: ${JSON.stringify(r.content)}`);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));

  for (const query of QUERIES) await client.callTool({ name: 'note_search', arguments: { query } });
  const samples: number[] = [];
  let hits = 0;
  for (let i = 0; i < opts.calls; i++) {
    await time(samples, async () => {
      const r = await client.callTool({ name: 'note_search', arguments: { query: QUERIES[i % QUERIES.length]!, limit: 10 } });
      if (r.isError) throw new Error(`note_search failed: ${JSON.stringify(r.content)}`);
      const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
      hits += text.startsWith('No ') ? 0 : parseRows(text, 'id').length;
    });
  }
  return { notes: opts.notes, search: summarize(samples), hitsPerQuery: hits / opts.calls };
}
