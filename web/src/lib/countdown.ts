/** How long until an instant, as the supervisor page's countdown shows it: `2h 05m 09s`,
 * `4m 07s`, `9s`; null once the instant has passed. Pure. */
export function remainingText(untilMs: number, nowMs: number): string | null {
  const total = Math.ceil((untilMs - nowMs) / 1000);
  if (total <= 0) return null;
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${h}h ${two(m)}m`;
  if (h > 0) return `${h}h ${two(m)}m ${two(s)}s`;
  if (m > 0) return `${m}m ${two(s)}s`;
  return `${s}s`;
}
