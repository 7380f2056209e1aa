import 'server-only';
import { dataSpans } from '../export/json';
import { picksApi, type Pick } from '../picks-api';
import type { ApiToken } from '../store/tokens';
import { cursorKey, openCursor, sealCursor, type CursorBinding, type CursorState } from './cursor';
import { reserveRecords } from './limits';
import { MAX_PAGE_SIZE, parseV1Query, planRequests, type Endpoint } from './plan';
import { inScope } from './scope';
import { V1Error } from './v1-errors';

/**
 * GET /api/v1/picks and /results for a token: the consumer's filters planned inside the scope, one upstream
 * page per request (a scope of several sports or leagues is walked request after request behind one sealed
 * cursor), records outside the scope dropped whatever the upstream sent, and the page answered in the spec's
 * envelope with the records as the upstream sent them (its bytes, when no record was dropped).
 */

const keys = new Map<string, Buffer>();
const keyFor = (secret: string) => {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = cursorKey(secret)));
  return key;
};

const badCursor = () =>
  new V1Error(400, 'INVALID_FILTERS', 'One or more filters are invalid (cursor: not a cursor of this walk; start again without it).');

export async function listAnswer(
  request: Request,
  token: ApiToken,
  endpoint: Endpoint,
  requestId: string,
  secret: string,
): Promise<{ body: Uint8Array | string; records: number }> {
  const query = parseV1Query(new URL(request.url).searchParams, endpoint);
  const plan = planRequests(token.scope, query.filters);
  const binding: CursorBinding = { tokenId: token.id, endpoint, filters: query.filters, scope: JSON.stringify(token.scope) };
  const key = keyFor(secret);
  let state: CursorState = { segment: 0, upstream: null };
  if (query.cursor !== null) {
    const opened = openCursor(query.cursor, binding, key);
    if (!opened || opened.segment >= plan.length) throw badCursor();
    state = opened;
  }

  // Never more than today's quota: the page is capped to what is left of it, and what it did not use is given back.
  const reserved = await reserveRecords(token, query.limit ?? MAX_PAGE_SIZE);
  const limit = query.limit !== null || reserved.granted < MAX_PAGE_SIZE ? reserved.granted : undefined;
  let served = 0;
  try {
    for (;;) {
      const { list, bytes } = await picksApi().listPage(
        endpoint,
        { ...plan[state.segment], limit, cursor: state.upstream ?? undefined },
        { signal: request.signal, priority: 'consumer' },
      );
      const more = list.page.hasMore && list.page.nextCursor ? list.page.nextCursor : null;
      const next: CursorState | null =
        more !== null
          ? { segment: state.segment, upstream: more }
          : state.segment + 1 < plan.length
            ? { segment: state.segment + 1, upstream: null }
            : null;
      // A part of the scope with nothing in it is passed over in the same request.
      if (list.data.length === 0 && more === null && next !== null) {
        state = next;
        continue;
      }
      const kept = list.data.filter((record) => inScope(record, token.scope));
      served = kept.length;
      const page = { nextCursor: next ? sealCursor(next, binding, key) : null, hasMore: next !== null };
      return { body: envelope(kept, list.data.length, bytes, page, requestId), records: kept.length };
    }
  } finally {
    await reserved.settle(served);
  }
}

/** The spec's envelope: the upstream's own record bytes when every record it sent is kept, else re-serialised. */
function envelope(
  kept: Pick[],
  sent: number,
  bytes: Uint8Array | null,
  page: { nextCursor: string | null; hasMore: boolean },
  requestId: string,
) {
  const tail = `],"page":${JSON.stringify(page)},"requestId":${JSON.stringify(requestId)}}`;
  const spans = bytes && kept.length === sent && sent > 0 ? dataSpans(bytes) : null;
  if (!bytes || !spans || spans.length !== sent * 2) return `{"data":[${kept.map((record) => JSON.stringify(record)).join(',')}${tail}`;
  const head = Buffer.from('{"data":[');
  const end = Buffer.from(tail);
  // From the first record's start to the last one's end: the records and the separators between them, as sent.
  const records = Buffer.from(bytes.buffer, bytes.byteOffset + spans[0]!, spans[spans.length - 1]! - spans[0]!);
  return Buffer.concat([head, records, end]);
}
