import 'server-only';
import { getConfig } from '../config';
import { isDraining } from '../draining';
import { authenticate } from '../tokens/access';
import { reserveRecords, takeRequest } from '../tokens/limits';
import type { ApiToken } from '../store/tokens';
import { V1Error } from '../tokens/refusal';
import type { V1Request } from './request';
import { gapMessage, needsChanges, onStore } from './events-page';
import { parseEventsQuery } from './events-query';
import { hashAtOrBefore, readEventsAfter, resumePoint, type EventsRead, type ResumePoint } from '../events/read';
import { lastMark, watchFeed, type FeedMark } from '../events/tail';

/**
 * GET /api/v1/events as server-sent events (docs/api-v1.md, "Events"): a token's events from where it resumes,
 * then each new one as the feed records it. A comment every HEARTBEAT_MS says the stream is alive and when the
 * feed last completed a poll. The token is judged again every RECHECK_MS by the one rule for who may act (a
 * revoked token, or one whose owner may no longer act, ends its stream); each event counts as a record of the
 * token's daily quota, and a stream past it gets a `quota` event and ends. A stream ends after MAX_STREAM_MS
 * (the consumer reconnects with Last-Event-ID), when the instance stops, or when the consumer stops reading for
 * WRITE_WAIT_MS.
 */

export const HEARTBEAT_MS = 15_000;
export const RECHECK_MS = 5_000;
export const MAX_STREAM_MS = 30 * 60_000;
export const WRITE_WAIT_MS = 60_000;
export const STREAMS_PER_TOKEN = 5;
const BATCH = 200;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'private, no-store, no-transform',
  'X-Content-Type-Options': 'nosniff',
  // Proxies that buffer (nginx) pass the stream on as it comes.
  'X-Accel-Buffering': 'no',
} as const;

/** Where a stream's text goes: `write` resolves once taken (false: the consumer is gone or did not read in time). */
export interface EventSink {
  write(text: string | Uint8Array): Promise<boolean>;
  /** Aborted when the consumer disconnects. */
  signal: AbortSignal;
}

export interface OpenedStream {
  token: ApiToken;
  point: ResumePoint;
  run(sink: EventSink): Promise<{ events: number; bytes: number }>;
}

const open = new Map<string, number>();

const frame = (event: { id?: number; event?: string; data: unknown }) =>
  `${event.id === undefined ? '' : `id: ${event.id}\n`}${event.event ? `event: ${event.event}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`;
const TURN = 20;
const turns: Array<() => void> = [];
let turning = false;
/** Resolves at this stream's turn: at most TURN streams go on in one pass of the event loop (an immediate queued by an immediate runs in the next pass). */
function turn(): Promise<void> {
  return new Promise((resolve) => {
    turns.push(resolve);
    if (!turning) {
      turning = true;
      setImmediate(nextTurns);
    }
  });
}
function nextTurns(): void {
  for (const go of turns.splice(0, TURN)) go();
  if (turns.length > 0) setImmediate(nextTurns);
  else turning = false;
}

/** The batch's frames, one text for every stream that reads the same batch (a WeakMap on the shared read). */
const framed = new WeakMap<EventsRead, Buffer>();
function framesOf(read: EventsRead, count = read.events.length): Buffer {
  const whole = count === read.events.length;
  const kept = whole ? framed.get(read) : undefined;
  if (kept) return kept;
  const text = Buffer.from(
    read.events
      .slice(0, count)
      .map((event, i) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${read.json[i]}\n\n`)
      .join(''),
    'utf8',
  );
  if (whole) framed.set(read, text);
  return text;
}
const heartbeat = (mark: FeedMark | null, now = Date.now()) =>
  `: alive ${new Date(now).toISOString()}; last poll ${mark?.completeMs ? new Date(mark.completeMs).toISOString() : 'none yet'}\n\n`;

/**
 * Everything that can refuse a stream of an authenticated token, before its first byte: its content (403), its rate
 * (429), the parameters (400), the store (503), and more streams of this token than STREAMS_PER_TOKEN here (429).
 */
export async function openEventStream(request: V1Request, token: ApiToken): Promise<OpenedStream> {
  await takeRequest(token);
  needsChanges(token);
  const query = parseEventsQuery(request);
  if ((open.get(token.id) ?? 0) >= STREAMS_PER_TOKEN)
    throw new V1Error(429, 'RATE_LIMITED', `This token has ${STREAMS_PER_TOKEN} event streams open on this portal instance already.`, 5);
  const days = getConfig().EVENTS_RETENTION_DAYS;
  const point = await onStore((db) => resumePoint(db, query.after, days, false));
  return { token, point, run: (sink) => runStream(request, token, point, days, sink) };
}

async function runStream(request: V1Request, opened: ApiToken, point: ResumePoint, days: number, sink: EventSink) {
  let token = opened;
  open.set(token.id, (open.get(token.id) ?? 0) + 1);
  let wake: (() => void) | null = null;
  // The feed moved since the last read began: read again before waiting.
  let moved = false;
  const nudge = () => {
    moved = true;
    wake?.();
  };
  const unwatch = watchFeed(nudge);
  sink.signal.addEventListener('abort', nudge, { once: true });
  const started = Date.now();
  let events = 0;
  let bytes = 0;
  const send = async (text: string | Uint8Array) => {
    bytes += typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
    return sink.write(text);
  };
  try {
    let cursor = point.after;
    if (!(await send(`retry: 3000\n${heartbeat(lastMark())}`))) return { events, bytes };
    if (point.gap) {
      const gap = { after: point.gap.asked, firstId: point.gap.first, message: gapMessage(point.gap, days) };
      if (!(await send(frame({ id: point.after, event: 'gap', data: gap })))) return { events, bytes };
    }
    let prev = await onStore((db) => hashAtOrBefore(db, token.scope, cursor));
    let lastBeat = Date.now();
    let lastCheck = Date.now();
    for (;;) {
      if (sink.signal.aborted || isDraining() || Date.now() - started > MAX_STREAM_MS) return { events, bytes };
      moved = false;
      // Streams take turns, TURN at a time per pass of the event loop: a burst fans out between other work.
      await turn();
      const read = await onStore((db) => readEventsAfter(db, token.scope, cursor, BATCH, prev, { heldUpTo: lastMark()?.last }));
      if (read.events.length > 0) {
        let granted = 0;
        let refused: V1Error | null = null;
        let settle: (used: number) => Promise<void> = async () => undefined;
        try {
          ({ granted, settle } = await reserveRecords(token, read.events.length));
        } catch (error) {
          if (!(error instanceof V1Error)) throw error;
          refused = error;
        }
        // One write for the batch: a burst fans out to many streams in few writes each.
        const text = granted === read.events.length ? framesOf(read) : framesOf(read, granted);
        const sent = granted > 0 && !(await send(text)) ? 0 : granted;
        if (sent > 0) prev = read.events[sent - 1]!.hash;
        events += sent;
        await settle(sent);
        if (sent < granted) return { events, bytes };
        if (granted < read.events.length) {
          const quota = {
            code: 'QUOTA_EXCEEDED',
            message: refused?.message ?? `This token has read its ${token.dailyRecords} records for today (UTC).`,
            retryAfterSeconds: refused?.retryAfterSeconds ?? null,
          };
          await send(frame({ event: 'quota', data: quota }));
          return { events, bytes };
        }
        cursor = read.scanned;
        if (read.events.length === BATCH) continue;
      } else cursor = read.scanned;
      // Caught up: wait for the feed to move, a heartbeat, or the next look at the token.
      const due = Math.min(lastBeat + HEARTBEAT_MS, lastCheck + RECHECK_MS);
      if (!moved)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, due - Date.now()));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = null;
      if (Date.now() >= lastBeat + HEARTBEAT_MS) {
        if (!(await send(heartbeat(lastMark())))) return { events, bytes };
        lastBeat = Date.now();
      }
      if (Date.now() >= lastCheck + RECHECK_MS) {
        lastCheck = Date.now();
        const now = await authenticate(request.header('authorization'), false).catch((error: unknown) => {
          if (error instanceof V1Error) return error;
          throw error;
        });
        // A token changed since: its limits apply from here; a new scope is another view of the feed (reconnect).
        const refused =
          now instanceof V1Error
            ? now
            : JSON.stringify(now.scope) !== JSON.stringify(token.scope)
              ? new V1Error(409, 'SCOPE_CHANGED', "This token's scope changed: reconnect with the last event id to read its new view.")
              : null;
        if (refused) {
          await send(frame({ event: 'closed', data: { code: refused.code, message: refused.message } }));
          return { events, bytes };
        }
        token = now as ApiToken;
      }
    }
  } catch (error) {
    // The store went away mid-stream: say so; the consumer reconnects with the last id it saw.
    const said = error instanceof V1Error ? error : new V1Error(503, 'UNAVAILABLE', 'The service is unavailable. Reconnect shortly.', 30);
    await send(frame({ event: 'closed', data: { code: said.code, message: said.message } })).catch(() => false);
    return { events, bytes };
  } finally {
    unwatch();
    const left = (open.get(token.id) ?? 1) - 1;
    if (left > 0) open.set(token.id, left);
    else open.delete(token.id);
  }
}
