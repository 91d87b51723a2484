/**
 * `node bench/dist/supervisor-latency.js` (also run at the end of `npm run bench` when
 * wired there): how long from a prompt appearing in a watched pane to its
 * `attention_required` event, through a real broker process with supervisor.enabled, woken
 * by the pane's output (no poll: poll_interval_seconds is an hour). The median of 20 runs.
 *
 * Each run: a pane waits in `read`; the bench presses Enter in it (tmux send-keys) at t0,
 * which makes bash print `Continue? [y/N]` at once; t1 is when supervisor.waitEvents
 * returns the event.
 */
import { join } from 'node:path';
import { createBrokerClient } from '@terminal-mcp/broker-client';
import { startBrokerProcess, startTmuxServer } from '@terminal-mcp/test';
import { summarize } from './stats.js';
import { createTeardown, type Teardown } from './teardown.js';

const RUNS = Number(process.env.BENCH_SUPERVISOR_RUNS ?? 20);

/** `owned`: the run's teardown, which stops what this starts if the bench is interrupted. */
export async function measureSupervisorLatency(owned: Teardown, runs = RUNS): Promise<{ p50: number; p99: number; n: number }> {
  const tmux = await startTmuxServer();
  const stopTmux = owned.add('the supervisor tmux server', () => tmux.kill());
  const broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: { log_level: 'warn', supervisor: { enabled: true, poll_interval_seconds: 3600, idle_threshold_seconds: 3600 } },
  });
  const stopBroker = owned.add('the supervisor broker', () => broker.stop());
  const client = createBrokerClient({ role: 'gateway', socketPath: join(broker.socketDir, 'gateway.sock') });
  const samples: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const name = `agent-bench-${i}`;
      await tmux.newSession(name, `bash --norc --noprofile -c 'read x; read -p "Continue? [y/N] " a; sleep 600'`, { width: 100, height: 20 });
      await client.supervisor.watch.mutate({ session: name });
      // Let the watcher attach and the first evaluations settle.
      await new Promise((r) => setTimeout(r, 300));
      let after = (await client.supervisor.listEvents.query({ limit: 1 })).events[0]?.id ?? 0;
      const t0 = process.hrtime.bigint();
      await tmux.tmux(['send-keys', '-t', name, 'Enter']);
      for (;;) {
        const r = await client.supervisor.waitEvents.query({ after_id: after, timeout_s: 20 });
        const hit = r.events.find((e) => e.target === name && e.event_type === 'attention_required');
        if (hit) break;
        if (r.state === 'PENDING') throw new Error(`no attention_required event for ${name} within 20 s`);
        after = r.next_after_id;
      }
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await client.supervisor.unwatch.mutate({ session: name });
      await tmux.tmux(['kill-session', '-t', name]);
    }
  } finally {
    await stopBroker();
    await stopTmux();
  }
  const s = summarize(samples);
  return { p50: s.p50, p99: s.p99, n: s.n };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const owned = createTeardown();
  const s = await measureSupervisorLatency(owned).finally(() => owned.run());
  console.log(`supervisor: prompt → attention_required event   p50 ${s.p50.toFixed(1)} ms   p99 ${s.p99.toFixed(1)} ms   (n=${s.n})`);
}
