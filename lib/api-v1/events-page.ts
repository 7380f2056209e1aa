import 'server-only';
import type { V1EventPage } from './shapes';
import { getConfig } from '../config';
import { getStore, storeUnavailable } from '../store';
import type { ApiToken } from '../store/tokens';
import { reserveRecords } from '../tokens/limits';
import { V1Error } from '../tokens/refusal';
import type { V1Request } from './request';
import { parseEventsQuery } from './events-query';
import { AheadOfFeed, hashAtOrBefore, readEventsAfter, resumePoint, type ResumePoint } from '../events/read';

/**
 * GET /api/v1/events as JSON pages, for consumers that cannot hold a connection: the events after `after` (the
 * oldest kept when none is named), each counted as a record of the token's daily quota, with where to read next.
 */

export const needsChanges = (token: ApiToken): void => {
  if (!token.scope.content.includes('changes'))
    throw new V1Error(403, 'OUT_OF_SCOPE', 'This token may not read the event stream: its scope does not include "changes".');
};

/** Work on the store; the store failing is a 503, the consumer's own mistakes stay theirs. */
export async function onStore<T>(work: (db: Awaited<ReturnType<typeof getStore>>['db']) => Promise<T>): Promise<T> {
  try {
    return await work((await getStore()).db);
  } catch (error) {
    if (error instanceof AheadOfFeed)
      throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: after ${error.message}.`);
    if (error instanceof V1Error) throw error;
    throw storeUnavailable(error);
  }
}

export const gapMessage = (gap: NonNullable<ResumePoint['gap']>, days: number) =>
  `Events after ${gap.asked} are no longer kept (this portal keeps ${days} days of events): the first it can give is ${gap.first}. ` +
  'Read the current set again (API v1 or a file), then continue from here.';

export async function eventsPageAnswer(request: V1Request, token: ApiToken, requestId: string): Promise<{ body: string; records: number }> {
  needsChanges(token);
  const query = parseEventsQuery(request);
  const days = getConfig().EVENTS_RETENTION_DAYS;
  const point = await onStore((db) => resumePoint(db, query.after, days, true));
  const reserved = await reserveRecords(token, query.limit);
  let served = 0;
  try {
    const read = await onStore(async (db) =>
      readEventsAfter(db, token.scope, point.after, reserved.granted, await hashAtOrBefore(db, token.scope, point.after), {
        heldUpTo: point.last,
      }),
    );
    served = read.events.length;
    const lastId = Math.max(point.last, read.scanned);
    const body: V1EventPage = {
      // Each event's record is one the change feed keyed by its id (the event's pickId): its id is always there.
      data: read.events as V1EventPage['data'],
      gap: point.gap && { after: point.gap.asked, firstId: point.gap.first, message: gapMessage(point.gap, days) },
      page: { after: point.after, nextAfter: read.scanned, lastId, hasMore: read.scanned < lastId },
      requestId,
    };
    return { body: JSON.stringify(body), records: served };
  } finally {
    await reserved.settle(served);
  }
}
