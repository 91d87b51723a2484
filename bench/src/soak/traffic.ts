/**
 * The load every soak scenario puts on the stack: one MCP client per pane, each typing a
 * unique token line (terminal_send_text with enter) and reading (terminal_tail) in turn until
 * stopped. A token whose send answered without error is ACKNOWLEDGED; one found in its pane's
 * file ARRIVED; an acknowledged token that never arrives is LOST (the one figure that must be 0).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
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
        else refused[code] = (refused[code] ?? 0) + 1;
        await call(client, 'terminal_tail', { session: pane.name, lines: 20 });
      } catch (err) {
        // The gateway or broker went away mid-call: not acknowledged.
        const code = (err as { code?: unknown }).code;
        refused[`transport:${String(code ?? 'error')}`] = (refused[`transport:${String(code ?? 'error')}`] ?? 0) + 1;
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
      return { calls, acknowledged: total, arrived: seen.exact + seen.joined, arrivedJoined: seen.joined, lost: seen.lost.length, lostSamples: seen.lost.slice(0, 3), refused, p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)) };
    },
  };
}
