/**
 * `npm run soak [-- --only clients,sigterm --clients 8 --seconds 20 --repeat 5]`: the reliability
 * suite (not part of npm test). Each scenario prints what was acknowledged, what arrived,
 * what was lost and its stop/recovery times; the run exits 1 when anything acknowledged was
 * lost or a scenario failed. Every scenario is bounded (its seconds plus SCENARIO_SLACK_MS)
 * and stops everything it started.
 */
import { loadavg } from 'node:os';
import { SCENARIOS, type ScenarioName, type ScenarioResult } from './scenarios.js';

/** Start, fault, recovery and the 10 s arrival wait on a loaded machine, on top of `seconds`. */
const SCENARIO_SLACK_MS = 240_000;

function parseArgs(argv: readonly string[]) {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const only = (value('--only') ?? Object.keys(SCENARIOS).join(',')).split(',').filter(Boolean);
  for (const name of only) if (!(name in SCENARIOS)) throw new Error(`unknown scenario ${name}; scenarios: ${Object.keys(SCENARIOS).join(',')}`);
  const clients = Number(value('--clients') ?? 4);
  const seconds = Number(value('--seconds') ?? 20);
  const repeat = Number(value('--repeat') ?? 1);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error('--repeat: 1 to 20');
  if (!Number.isInteger(clients) || clients < 1 || clients > 32) throw new Error('--clients: 1 to 32');
  if (!Number.isInteger(seconds) || seconds < 4 || seconds > 3600) throw new Error('--seconds: 4 to 3600');
  return { only: only as ScenarioName[], clients, seconds, repeat };
}

function bounded<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([work, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`over its bound of ${Math.round(ms / 1000)} s`)), ms)))]).finally(() => clearTimeout(timer));
}

function line(name: string, r: ScenarioResult, ms: number): string {
  const t = r.traffic;
  const traffic = t ? ` acknowledged ${t.acknowledged} arrived ${t.arrived}${t.arrivedJoined > 0 ? ` (${t.arrivedJoined} joined behind an unacknowledged paste)` : ''} lost ${t.lost}${t.lost > 0 ? ` [${t.lostSamples.join(' ')}]` : ''}; ${t.calls} calls p50 ${t.p50Ms} ms p99 ${t.p99Ms} ms; refused ${JSON.stringify(t.refused)};` : '';
  const figures = Object.entries(r.figures).map(([k, v]) => `${k} ${v}`).join(', ');
  return `${r.ok ? 'ok  ' : 'FAIL'} ${name.padEnd(14)}${traffic} ${figures}${r.note ? ` (${r.note})` : ''} [${(ms / 1000).toFixed(1)} s]`;
}

async function main(): Promise<void> {
  const settings = parseArgs(process.argv.slice(2));
  process.stdout.write(`soak: ${settings.only.join(', ')}; ${settings.clients} clients, ${settings.seconds} s each, broker stops x${settings.repeat}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  let failed = 0;
  for (const name of settings.only) {
    const began = Date.now();
    let result: ScenarioResult;
    try {
      // sigterm and kill9 run (repeat + 1) halves of `seconds`, each with a restart.
      result = await bounded(settings.seconds * 1000 * (1 + settings.repeat / 2) + SCENARIO_SLACK_MS * settings.repeat, SCENARIOS[name](settings));
    } catch (err) {
      result = { ok: false, note: (err as Error).message.split('\n')[0]!.slice(0, 300), figures: {} };
    }
    if (!result.ok) failed++;
    process.stdout.write(`${line(name, result, Date.now() - began)}\n`);
  }
  process.stdout.write(`soak: ${failed === 0 ? 'every scenario held' : `${failed} scenario(s) FAILED`}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
