/**
 * The load every soak scenario puts on the stack: one MCP client per pane, each typing a
 * unique token line (terminal_send_text with enter) and reading (terminal_tail) in turn until
 * stopped. A token whose send answered without error is ACKNOWLEDGED; one found in its pane's
 * file ARRIVED; an acknowledged token that never arrives is LOST (the one figure that must be 0).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseRows } from '@terminal-mcp/test';
import { call, errorCodeOf, type SoakStack } from './soak-stack.js';

export interface TrafficFigures {
  calls: number;
  acknowledged: number;
  arrived: number;
  /** Of `arrived`: tokens that arrived joined to the end of another line, behind text a
   * send that was NOT acknowledged left on the pane's input line without its Enter (the
   * broker killed between paste and Enter: DELIVERY_UNKNOWN). Their bytes arrived. */
  arrivedJoined: number;
  lost: number;
  /** Issue 43's claims, each must be 0: sends whose client was told a code that says
   * "nothing was typed" (`*_UNAVAILABLE`, a transport error) yet whose token arrived. */
  toldNotTypedButArrived: number;
  /** Tokens whose audit row disagrees with the pane: arrived but audited FAILED/BLOCKED, or
   * acknowledged but not audited SENT (rows read back with terminal_list_input_audit). */
  auditDisagrees: number;
  /** Up to 3 samples of either, to look for. */
  disagreementSamples: string[];
  /** Up to 3 lost tokens, to look for. */
  lostSamples: string[];
  /** Sends refused or failed, by error code (not acknowledged, so never "lost"). */
  refused: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

export interface Traffic {
  stop(): Promise<TrafficFigures>;
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

export async function startTraffic(stack: SoakStack, label: string): Promise<Traffic> {
  let running = true;
  const acked = new Map<string, string[]>();
  /** Tokens whose send was answered with an error, and the code. */
  const toldFailed = new Map<string, string>();
  const refused: Record<string, number> = {};
  const latencies: number[] = [];
  let calls = 0;
  const clients: Client[] = await Promise.all(stack.panes.map((p) => stack.client(`soak-${label}-${p.name}`)));
  const loops = stack.panes.map(async (pane, i) => {
    const client = clients[i]!;
    const mine: string[] = [];
    acked.set(pane.name, mine);
    for (let n = 0; running; n++) {
      const token = `${label}-${i}-${n}-${Date.now()}`;
      const began = performance.now();
      try {
        const sent = await call(client, 'terminal_send_text', { session: pane.name, text: token, enter: true });
        const code = errorCodeOf(sent);
        if (code === undefined) mine.push(token);
        else {
          refused[code] = (refused[code] ?? 0) + 1;
          toldFailed.set(token, code);
        }
        await call(client, 'terminal_tail', { session: pane.name, lines: 20 });
      } catch (err) {
        // The gateway or broker went away mid-call: not acknowledged.
        const code = (err as { code?: unknown }).code;
        refused[`transport:${String(code ?? 'error')}`] = (refused[`transport:${String(code ?? 'error')}`] ?? 0) + 1;
        toldFailed.set(token, `transport:${String(code ?? 'error')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      latencies.push(performance.now() - began);
      calls += 2;
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      // What was acknowledged has 10 s to show up in its pane's file (a loaded machine).
      // Tokens are unique (client, sequence, time), so a line containing one holds that send.
      const check = () => {
        let exact = 0;
        let joined = 0;
        const lost: string[] = [];
        for (const p of stack.panes) {
          const lines = p.lines();
          const whole = new Set(lines);
          for (const t of acked.get(p.name) ?? []) {
            if (whole.has(t)) exact++;
            else if (lines.some((l) => l.endsWith(t))) joined++;
            else lost.push(t);
          }
        }
        return { exact, joined, lost };
      };
      const total = [...acked.values()].reduce((n, a) => n + a.length, 0);
      const deadline = Date.now() + 10_000;
      let seen = check();
      while (seen.lost.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        seen = check();
      }
      const sorted = [...latencies].sort((a, b) => a - b);
      const claims = await checkClaims(stack, acked, toldFailed);
      return {
        calls,
        acknowledged: total,
        arrived: seen.exact + seen.joined,
        arrivedJoined: seen.joined,
        lost: seen.lost.length,
        lostSamples: seen.lost.slice(0, 3),
        ...claims,
        refused,
        p50Ms: Math.round(percentile(sorted, 50)),
        p99Ms: Math.round(percentile(sorted, 99)),
      };
    },
  };
}

/** A code that tells the client nothing was typed. DELIVERY_UNKNOWN and the gates'
 * refusals are not among them (the first says "maybe", the others are BLOCKED before). */
const saysNotTyped = (code: string) => code.endsWith('_UNAVAILABLE') || code.startsWith('transport:');

/** Issue 43's exact claims after a run: every client told "not typed" for text that was
 * typed, and every audit row that disagrees with what reached the panes. */
async function checkClaims(stack: SoakStack, acked: ReadonlyMap<string, readonly string[]>, toldFailed: ReadonlyMap<string, string>): Promise<Pick<TrafficFigures, 'toldNotTypedButArrived' | 'auditDisagrees' | 'disagreementSamples'>> {
  const arrived = new Set<string>();
  for (const p of stack.panes) for (const l of p.lines()) for (const t of l.split(/(?=(?:clients|sigterm|sigkill|tmux|damage|disk)-\d+-\d+-\d{13})/)) arrived.add(t);
  const samples: string[] = [];
  let told = 0;
  for (const [token, code] of toldFailed) {
    if (saysNotTyped(code) && arrived.has(token)) {
      told++;
      if (samples.length < 3) samples.push(`${token}: told ${code}, arrived`);
    }
  }
  // The audit rows, read back through the gateway (every soak client is the same
  // principal, so one client sees them all): the preview holds the token.
  const decisions = new Map<string, string>();
  const client = await stack.client('soak-audit-reader');
  let cursor: string | undefined;
  for (let page = 0; page < 500; page++) {
    const r = await call(client, 'terminal_list_input_audit', { limit: 100, ...(cursor ? { cursor } : {}) }).catch(() => null);
    if (r === null || r.isError) break;
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    for (const row of parseRows(text, 'id')) {
      const preview = typeof row.preview === 'string' ? row.preview : '';
      if (row.tool === 'terminal_send_text' && preview !== '') decisions.set(preview, String(row.decision));
    }
    cursor = /pass cursor "([^"]+)"/.exec(text)?.[1];
    if (cursor === undefined) break;
  }
  let disagree = 0;
  const note = (s: string) => {
    disagree++;
    if (samples.length < 6) samples.push(s);
  };
  for (const tokens of acked.values()) for (const t of tokens) if (decisions.get(t) !== 'SENT') note(`${t}: acknowledged, audited ${decisions.get(t) ?? 'nowhere'}`);
  for (const [t, decision] of decisions) {
    if ((decision === 'FAILED' || decision === 'BLOCKED') && arrived.has(t)) note(`${t}: audited ${decision}, arrived`);
    // Every DELIVERY_UNKNOWN reaches its client as such (or the call itself broke).
    const told = toldFailed.get(t);
    if (decision === 'DELIVERY_UNKNOWN' && told !== 'DELIVERY_UNKNOWN' && !told?.startsWith('transport:')) note(`${t}: audited DELIVERY_UNKNOWN, client told ${told ?? 'SENT'}`);
  }
  return { toldNotTypedButArrived: told, auditDisagrees: disagree, disagreementSamples: samples };
}
