import 'server-only';
import type { V1Checkpoints, V1Receipt } from './shapes';
import { getConfig } from '../config';
import { signDocument } from '../proof/signer';
import type { ApiToken } from '../store/tokens';
import { V1Error } from '../tokens/refusal';
import type { V1Request } from './request';
import { needsChanges, onStore } from './events-page';
import { WHOLE } from './events-query';
import { checkpointsAfter, firstEventSeqSince, lastEventSeq } from '../store/events';
import { hashAtOrBefore, readEventsAfter } from '../events/read';
import pLimit, { type LimitFunction } from 'p-limit';
import { processSlot } from '../process-state';
import { reserveRecords } from '../tokens/limits';
import { RECEIPT_TYPE } from '../events/checkpoints';

/**
 * GET /api/v1/events/receipt?from=&to=: a statement, signed with the key the manifests use (same JWK Set, type
 * picks-events-receipt+json), of the token's events from `from` to `to`: how many, the hash of the event before
 * the first, and the last one's hash. With it the offline verifier (public/verify-picks-events.mjs) shows that a
 * consumer's saved events are all of them, unaltered, none added.
 */

const MAX_SPAN = 1_000_000;

function range(request: V1Request): { from: number; to: number } {
  const params = request.url.searchParams;
  const problems: string[] = [];
  for (const key of new Set(params.keys()))
    if (key !== 'from' && key !== 'to') problems.push(`${key.slice(0, 40)} is not a parameter of the receipt (from, to)`);
  const id = (name: 'from' | 'to') => {
    const value = params.get(name);
    if (value !== null && WHOLE.test(value) && Number(value) >= 1) return Number(value);
    problems.push(`${name} must be an event id (a whole number from 1)`);
    return 0;
  };
  const from = id('from');
  const to = id('to');
  if (from && to && to < from) problems.push('to must not be before from');
  if (from && to && to - from >= MAX_SPAN) problems.push(`a receipt covers at most ${MAX_SPAN} ids: ask for several`);
  if (problems.length > 0) throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: ${problems.join('; ')}.`);
  return { from, to };
}

/** What a receipt costs: one record of the token's daily quota for every RECEIPT_IDS_PER_RECORD ids it covers (at least one). */
export const RECEIPT_IDS_PER_RECORD = 1_000;
/** One receipt is worked out at a time in a process, a batch of events at a time, each batch after pending I/O. */
const oneAtATime = () => processSlot<LimitFunction>('eventReceipts').once(() => pLimit(1));
const RECEIPT_BATCH = 500;
const afterIo = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function receiptAnswer(request: V1Request, token: ApiToken, requestId: string): Promise<{ body: string; records: number }> {
  needsChanges(token);
  const { from, to } = range(request);
  const days = getConfig().EVENTS_RETENTION_DAYS;
  // The span is capped at what is kept (from the oldest event kept to the newest), and paid before it is worked out.
  const cost = Math.ceil((to - from + 1) / RECEIPT_IDS_PER_RECORD);
  await onStore(async (db) => {
    const last = await lastEventSeq(db);
    if (to > last) throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: to is after the last event (${last}).`);
    const first = (await firstEventSeqSince(db, new Date(Date.now() - days * 86_400_000).toISOString())) ?? last + 1;
    if (from < first)
      throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: from is before the oldest event kept (${first}).`);
  });
  const reserved = await reserveRecords(token, cost);
  if (reserved.granted < cost) {
    await reserved.settle(0);
    throw new V1Error(
      429,
      'QUOTA_EXCEEDED',
      `This receipt costs ${cost} records of the token's daily quota (one per ${RECEIPT_IDS_PER_RECORD} ids); ${reserved.granted} are left today. Ask for a shorter span, or again from midnight UTC.`,
    );
  }
  const statement = await oneAtATime()(() =>
    onStore(async (db) => {
      const prev = await hashAtOrBefore(db, token.scope, from - 1);
      let count = 0;
      let lastHash: string | null = null;
      let lastId: number | null = null;
      let firstId: number | null = null;
      for (let cursor = from - 1, link = prev; cursor < to;) {
        await afterIo();
        const read = await readEventsAfter(db, token.scope, cursor, RECEIPT_BATCH, link);
        const inside = read.events.filter((event) => event.seq <= to);
        for (const event of inside) {
          count += 1;
          firstId ??= event.seq;
          lastId = event.seq;
          lastHash = event.hash;
        }
        if (read.events.length === 0 || inside.length < read.events.length || read.scanned <= cursor) break;
        cursor = read.scanned;
        link = read.events.at(-1)!.hash;
      }
      return { tokenId: token.id, from, to, count, firstId, lastId, prev, lastHash, issuedAt: new Date().toISOString() };
    }),
  ).catch(async (error: unknown) => {
    await reserved.settle(0);
    throw error;
  });
  const { jws } = await signDocument(statement, RECEIPT_TYPE);
  const body: V1Receipt = { receipt: statement, jws, requestId };
  return { body: JSON.stringify(body), records: cost };
}

/** GET /api/v1/events/checkpoints?after=: the token's signed checkpoints ending after `after` (0: all), oldest first. */
export async function checkpointsAnswer(
  request: V1Request,
  token: ApiToken,
  requestId: string,
): Promise<{ body: string; records: number }> {
  needsChanges(token);
  const params = request.url.searchParams;
  const problems: string[] = [];
  for (const key of new Set(params.keys()))
    if (key !== 'after' && key !== 'limit') problems.push(`${key.slice(0, 40)} is not a parameter of the checkpoints (after, limit)`);
  const after = params.get('after') ?? '0';
  if (!WHOLE.test(after)) problems.push('after must be an event id (a whole number, 0 for all)');
  const limit = params.get('limit') ?? '100';
  if (!WHOLE.test(limit) || Number(limit) < 1 || Number(limit) > 1_000) problems.push('limit must be a whole number from 1 to 1000');
  if (problems.length > 0) throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: ${problems.join('; ')}.`);
  const kept = await onStore((db) => checkpointsAfter(db, token.id, Number(after), Number(limit)));
  const data = kept.map((c) => ({
    from: c.fromSeq,
    to: c.toSeq,
    count: c.count,
    lastHash: c.lastHash,
    signedAt: new Date(c.atMs).toISOString(),
    jws: c.jws,
  }));
  const body: V1Checkpoints = { data, requestId };
  return { body: JSON.stringify(body), records: 0 };
}
