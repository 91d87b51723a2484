/**
 * One recorder's recordings, by tmux session id (a recorder serves one tmux server, where
 * an id names one session at a time), and the positions they hand out: the same rules for
 * this host's recorder (recorder.ts) and a node's (node-recorder.ts). A recording hands out
 * a position only once its first lines are written and until it stops.
 */
import type { BrokerConfig } from '../../config/schema.js';
import { sameSession, sessionIdentityOf, type SessionIdentity } from '../../policy/identity.js';
import type { RecordingPosition } from './recorder.js';
import type { TranscriptMeta, TranscriptStore, TranscriptWriter } from './transcript-files.js';

/** The transcript a recording of `identity` writes to: its meta (an earlier recording's,
 * under the session's name now and no longer ended, or a new one) and a writer at its end;
 * `resumed` when it had output already (a restart, read access again). */
export function openRecordingTranscript(
  store: TranscriptStore,
  config: Pick<BrokerConfig, 'transcripts'>,
  identity: SessionIdentity,
  name: string,
  size: { width: number; height: number },
  now: number,
): { meta: TranscriptMeta; writer: TranscriptWriter; resumed: boolean } {
  const existing = store.meta(identity);
  const meta: TranscriptMeta = existing
    ? { ...existing, name, endedAt: null }
    : { version: 1, name, ...sessionIdentityOf(identity), startedAt: now, width: size.width, height: size.height, endedAt: null };
  store.writeMeta(meta);
  const writer = store.openWriter(meta, { segmentBytes: config.transcripts.segment_bytes, maxBytes: config.transcripts.max_bytes_per_session });
  return { meta, writer, resumed: writer.end() > 0 };
}

export interface RecordingEntry {
  readonly identity: SessionIdentity;
  name: string;
  started: boolean;
  stopped: boolean;
  readonly writer: { end(): number };
}

export interface Recordings<R extends RecordingEntry> {
  /** Every recording, started or not, by session id. */
  readonly bySessionId: Map<string, R>;
  positionOf(r: R): RecordingPosition | null;
  /** The position of the recording of exactly this identity (same server, id, creation). */
  position(identity: SessionIdentity): RecordingPosition | null;
  /** The position of the recording now under this name. */
  positionByName(name: string): RecordingPosition | null;
  /** Identities recorded now (started, not stopped). */
  recording(): SessionIdentity[];
}

export function createRecordings<R extends RecordingEntry>(): Recordings<R> {
  const bySessionId = new Map<string, R>();
  const positionOf = (r: R): RecordingPosition | null => (r.started && !r.stopped ? { identity: r.identity, name: r.name, offset: r.writer.end() } : null);
  return {
    bySessionId,
    positionOf,
    position(identity) {
      const r = bySessionId.get(identity.sessionId);
      return r && sameSession(r.identity, identity) ? positionOf(r) : null;
    },
    positionByName(name) {
      for (const r of bySessionId.values()) if (r.name === name) return positionOf(r);
      return null;
    },
    recording: () => [...bySessionId.values()].filter((r) => r.started && !r.stopped).map((r) => r.identity),
  };
}
