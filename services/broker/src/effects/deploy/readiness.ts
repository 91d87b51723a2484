/** Deploy-preview readiness facts: whether a command's program can be found, and whether
 * a probe URL (loopback only, checked in config) answers. Bounded by a short timeout; a
 * probe reads no body and follows no redirect. */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

export async function programFound(program: string): Promise<boolean> {
  const candidates = isAbsolute(program) || program.includes('/') ? [program] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, program));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      return true;
    } catch {
      // next
    }
  }
  return false;
}

export async function probeUrl(url: string, timeoutMs: number): Promise<{ ok: boolean; httpStatus: number | null; error: string | null }> {
  try {
    // The one TCP connection the broker still opens: an operator-configured deploy-preview
    // probe, loopback only (config/schema.ts loopbackUrl). Not a notification; moving it out
    // of the broker is left for later (issue 47).
    // eslint-disable-next-line terminal-mcp/no-network-egress -- loopback-only deploy-preview readiness probe (config refuses any other host)
    const res = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return { ok: res.status >= 200 && res.status < 400, httpStatus: res.status, error: null };
  } catch (err) {
    const name = (err as Error).name;
    return { ok: false, httpStatus: null, error: name === 'TimeoutError' ? 'timed out' : 'connection failed' };
  }
}
