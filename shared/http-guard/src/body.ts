/** Reads a request body up to a hard limit (Postfix rule: every program that reads
 * untrusted input enforces size limits).
 *
 * A body over the limit is refused, but first read to its end and thrown away (up to
 * `drainBytes`, for at most `drainMs`): a server that answers 413 and closes while the client
 * is still sending makes the client's kernel see a reset, and the client reports a broken
 * connection (EPIPE, ECONNRESET) instead of the 413 (issue 44: a 5 MB note_create). A
 * declared Content-Length over `drainBytes` is refused unread, as is whatever is still
 * arriving when either drain bound is reached. */
import type { IncomingMessage } from 'node:http';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How much of a refused body is read and discarded so the client sees the 413. */
export const DEFAULT_DRAIN_BYTES = 16 * 1024 * 1024;
/** How long a refused body may take to finish arriving (a slow sender is cut off). */
export const DEFAULT_DRAIN_MS = 10_000;

export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

export interface DrainBounds {
  drainBytes?: number;
  drainMs?: number;
}

export function readLimitedBody(req: IncomingMessage, maxBytes: number, bounds: DrainBounds = {}): Promise<BodyResult> {
  const drainBytes = Math.max(bounds.drainBytes ?? DEFAULT_DRAIN_BYTES, maxBytes);
  const drainMs = bounds.drainMs ?? DEFAULT_DRAIN_MS;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > drainBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    /** Set once the body passed the limit: the rest is discarded until its end. */
    let draining = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      if (drainTimer) clearTimeout(drainTimer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const tooLarge = () => {
      // Stop reading; the caller answers 413 and closes the connection.
      req.pause();
      finish({ ok: false, reason: 'too_large' });
    };
    const startDraining = () => {
      draining = true;
      chunks.length = 0;
      drainTimer = setTimeout(tooLarge, drainMs);
      drainTimer.unref();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (draining) {
        if (received > drainBytes) tooLarge();
        return;
      }
      if (received > maxBytes) {
        if (received > drainBytes) tooLarge();
        else startDraining();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(draining ? { ok: false, reason: 'too_large' } : { ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onError = () => finish(draining ? { ok: false, reason: 'too_large' } : { ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
    if (Number.isFinite(declared) && declared > maxBytes) startDraining();
  });
}
