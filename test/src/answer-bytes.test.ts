// Guards compact answers (issue 31): every list-shaped answer of the gateway and the observer, as a real MCP SDK client receives it (text plus any structuredContent) on realistic fixtures, stays within its byte budget; structuredContent travels only where a client reads it (a published output schema or an MCP Apps view); the list of list-shaped tools is derived from the tool tables, so a new one cannot skip its budget; terminal_list_sessions of 50 varied sessions fits 6 KB and still names every session with its access, read back from the text alone.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_TOOLS, parseRows } from '@terminal-mcp/gateway';
import { OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { answerBytes, answerText, LIST_CALLS, startListAnswersFixture, type ListAnswersFixture, type ListCall } from './helpers/list-answers.js';
import { variedSessionHasTwoWindows, variedSessionName } from './helpers/varied-sessions.js';

/**
 * Budgets in bytes (text plus structured content) on the fixtures of helpers/list-answers.ts,
 * at 50 sessions. The issue sets terminal_list_sessions at 6 KB; the rest are the measured
 * size with room for about a quarter more (longer names, timestamps, ids) and well under what
 * the same rows cost before (docs/tools.md "List answers" has both figures). Answers whose
 * size is their content (pane text, patches, file lines) are budgeted on that content: the
 * budget catches a per-row field or a structured copy coming back, not the content itself.
 */
const BUDGETS: Readonly<Record<string, number>> = {
  terminal_list_sessions: 6_000,
  terminal_batch_inspect: 6_000,
  terminal_list_input_audit: 8_000,
  terminal_list_bindings: 4_000,
  note_list: 7_000,
  note_search: 11_000,
  note_facets: 600,
  supervisor_list_watches: 3_500,
  supervisor_list_events: 5_000,
  supervisor2_list_actionable_events: 300,
  supervisor2_list_actions: 300,
  supervisor_wait_events: 5_000,
  // At most one event per watch (30 here); how many a pass records depends on timing.
  supervisor_run_once: 5_000,
  source_list_projects: 700,
  source_git_status: 1_200,
  source_git_log: 11_000,
  source_list_refs: 1_200,
  source_blame: 8_500,
  source_list_files: 1_500,
  source_search: 5_000,
  source_show_commit: 11_000,
  source_diff: 80_000,
};

/** Tools whose output has an array that is part of one item, not a list of items. */
const NOT_LISTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['note_create', 'note_get', 'note_update', 'note_delete', 'note_restore', 'note_link_to_project', 'note_mark_applied'].map((t) => [t, 'one note: its tags and (at most 20) attachments']),
  ),
  project_check: "one project: the few sessions of its profile, each with its status",
  terminal_list_panes: 'the windows and panes of one session (what a person split it into), not a list that grows with use of the service',
  terminal_node_health: 'one row per configured node (a fixed handful from config.yaml), not a list that grows with use',
  terminal_read_since: "one read of one session's output (text lines); write_failed_spans lists the few gaps inside it, capped by TRANSCRIPT_LIMITS.maxWriteFailedSpans",
};

/** An output field that is an array of objects or of rows: what makes an answer a list. */
function listField(schema: z.ZodType): boolean {
  let def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; element?: z.ZodType } } })._zod.def;
  while ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) def = (def.innerType as unknown as { _zod: { def: typeof def } })._zod.def;
  if (def.type !== 'array' || !def.element) return false;
  const element = (def.element as unknown as { _zod: { def: { type: string } } })._zod.def.type;
  return element === 'object' || element === 'array';
}

const ALL_TOOLS = [...GATEWAY_TOOLS, ...OBSERVER_TOOLS];
const LIST_SHAPED = [...new Set(ALL_TOOLS.filter((t) => Object.values(t.outputSchema.shape).some((s) => listField(s as z.ZodType))).map((t) => t.name))].sort();

describe('list-shaped tools, from the tool tables', () => {
  it('every list-shaped tool has a fixture call and a budget, or says why it is not a list', () => {
    expect(LIST_SHAPED.length).toBeGreaterThan(20);
    const measured = new Set(LIST_CALLS.map((c) => c.tool));
    const missing = LIST_SHAPED.filter((t) => NOT_LISTS[t] === undefined && (!measured.has(t) || BUDGETS[t] === undefined));
    expect(missing, 'add a call to LIST_CALLS (test/src/helpers/list-answers.ts) and a budget here').toEqual([]);
    // Every budget and exemption names a tool that exists.
    const names = new Set(ALL_TOOLS.map((t) => t.name));
    expect([...Object.keys(BUDGETS), ...Object.keys(NOT_LISTS)].filter((t) => !names.has(t))).toEqual([]);
  });

  it('structuredContent only where a client reads it: a published output schema or an MCP Apps view', () => {
    const structured = [...new Set(ALL_TOOLS.filter((t) => t.structured).map((t) => t.name))].sort();
    expect(structured).toEqual(['terminal_resume_wait', 'terminal_run', 'terminal_send_task', 'terminal_status', 'terminal_tail', 'terminal_wait_for_approval', 'terminal_wait_for_state']);
    for (const t of ALL_TOOLS) expect(t.structured, t.name).toBe(t.publishOutputSchema || (t.meta as { ui?: unknown } | undefined)?.ui !== undefined);
    expect(LIST_SHAPED.filter((t) => structured.includes(t))).toEqual([]);
  });
});

describe('list answers within their budgets', { timeout: 900_000 }, () => {
  let fx: ListAnswersFixture;
  const answers = new Map<string, CallToolResult>();
  beforeAll(async () => {
    fx = await startListAnswersFixture();
    await fx.growTo(50);
    for (const c of LIST_CALLS) answers.set(c.tool, await fx.call(c));
  }, 900_000);
  afterAll(async () => {
    await fx?.close();
  });
  const answer = (tool: string) => answers.get(tool)!;

  it.each(LIST_CALLS.map((c) => [c.tool, c] as [string, ListCall]))('%s', (tool, c) => {
    const r = answer(tool);
    const bytes = answerBytes(r);
    console.log(`${tool.padEnd(36)} ${c.fixture.padEnd(44)} ${String(bytes.total).padStart(6)} B (text ${bytes.text}, structured ${bytes.structured}); budget ${BUDGETS[tool]}`);
    expect(r.structuredContent, 'a list answer is text only').toBeUndefined();
    expect(bytes.total).toBeLessThanOrEqual(BUDGETS[tool]!);
  });

  it('terminal_list_sessions names every session once with its access, read back from the text', () => {
    const text = answerText(answer('terminal_list_sessions'));
    const rows = parseRows(text, 'name');
    expect(rows.map((s) => s.name).sort()).toEqual(Array.from({ length: 50 }, (_, i) => variedSessionName(i)).sort());
    for (const s of rows) {
      const kind = String(s.name).split('-')[0];
      expect(s.access, String(s.name)).toBe(kind === 'claude' ? 'ri' : kind === 'build' || kind === 'notes' ? '-' : 'r');
      expect(s.windows, String(s.name)).toBe(variedSessionHasTwoWindows(Number(String(s.name).split('-').pop())) ? 2 : 1);
      // Nobody is attached and nothing is in copy mode: said once, not fifty times.
      expect(s).toMatchObject({ attached: 0, copy_mode: false });
    }
    expect(text).toMatch(/^same in every row: .*attached=0 copy_mode=false/m);
  });

  it('the other tables read back too: a shared value once, the rest per row', () => {
    const audit = parseRows(answerText(answer('terminal_list_input_audit')), 'id');
    expect(audit).toHaveLength(50);
    expect(new Set(audit.map((e) => e.actor)).size).toBe(1);
    expect(answerText(answer('terminal_list_input_audit'))).toMatch(/^same in every row: .*actor=/m);
    expect(audit.filter((e) => e.decision === 'DRY_RUN').length).toBeGreaterThan(0);
    expect(parseRows(answerText(answer('note_list')), 'id')).toHaveLength(50);
    expect(parseRows(answerText(answer('note_search')), 'id')).toHaveLength(50);
    const bindings = parseRows(answerText(answer('terminal_list_bindings')), 'binding');
    expect(bindings).toHaveLength(30);
    expect(bindings.every((b) => b.state === 'OK')).toBe(true);
    expect(parseRows(answerText(answer('supervisor_list_watches')), 'watch_key')).toHaveLength(30);
    expect(parseRows(answerText(answer('source_git_log')), 'commit')).toHaveLength(50);
    expect(parseRows(answerText(answer('source_list_files')), 'path')).toHaveLength(40);
    expect(parseRows(answerText(answer('source_list_refs')), 'tag')).toHaveLength(10);
  });

  it('200 sessions: the figures', async () => {
    await fx.growTo(200);
    for (const c of LIST_CALLS.filter((x) => x.perSessions)) {
      const b = answerBytes(await fx.call(c));
      console.log(`${c.tool.padEnd(36)} 200 sessions ${String(b.total).padStart(6)} B (text ${b.text})`);
    }
    expect(parseRows(answerText(await fx.call(LIST_CALLS[0]!)), 'name')).toHaveLength(200);
  });
});
