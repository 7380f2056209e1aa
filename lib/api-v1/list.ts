import 'server-only';
import { dataSpans } from '../export/json';
import { encodingOf, picksApi, sniffNextCursor, type Pick, type PickList } from '../picks-api';
import { textOfByteString } from '../picks-api/byte-strings';
import type { ApiToken } from '../store/tokens';
import { cursorKey, openCursor, sealCursor, type CursorBinding, type CursorState } from './cursor';
import { giveBackRequest, reserveRecords, takeAheadRequest } from '../tokens/limits';
import { MAX_PAGE_SIZE, needsLicence, parseV1Query, planRequests, type Endpoint } from './plan';
import { licenceOrNull } from '../picks-api/portal';
import { inScope, projectRecord, withheldFields } from '../tokens/scope';
import type { V1Request } from './request';
import { V1Error } from '../tokens/refusal';
import { waitHitBound } from '../waits';
import { observeApiPage } from '../history/observe-api';

/**
 * GET /api/v1/picks and /results for a token: the consumer's filters planned inside the scope, one upstream
 * page per request (a scope of several sports or leagues is walked request after request behind one sealed
 * cursor), records outside the scope dropped whatever the upstream sent, and the page answered in the spec's
 * envelope with the records as the upstream sent them (its bytes, when no record was dropped).
 * A consumer walking with a cursor is served from up to two pages ahead: the upstream pages its next cursors
 * name are asked for as soon as they are known, so the consumer's next request finds its page ready or on the
 * way, and the walk goes at the pace of the slower of the upstream and the consumer instead of their sum. The
 * first page of a walk is not read ahead: a consumer that reads one page costs the upstream one page; one that
 * stops walking has cost at most two pages more. Each position is read ahead once, whatever page sizes are asked
 * (a request with another size is answered on its own), and every page read ahead counts against the token's
 * requests a minute (given back when the consumer's request is answered from it): a token at its rate reads
 * nothing ahead.
 */

type UpstreamPage = { list: PickList; bytes: Uint8Array | null };

const AHEAD_MS = 30_000;
const AHEAD_MAX = 64;
const ahead = new Map<string, { at: number; limit: number | undefined; page: Promise<UpstreamPage> }>();
/**
 * The positions a walk was read ahead from, and the position each read ahead: a position asked again while its
 * page ahead is still waiting (another page size, a retry) reads nothing more ahead. Once the consumer has taken
 * that page the walk has moved on, and a walk passing the position again later (the next day's load, a rerun) is
 * a new walk: it reads ahead again.
 */
const launched = new Map<string, { at: number; next: string }>();

/** Whether reading ahead from this position is new (and notes it, with the position it reads ahead). */
function firstFrom(key: string, next: string, now = Date.now()): boolean {
  for (const [k, from] of launched) if (now - from.at > AHEAD_MS || launched.size >= AHEAD_MAX * 4) launched.delete(k);
  if (launched.has(key)) return false;
  launched.set(key, { at: now, next });
  return true;
}

/** The page read ahead for `next` was taken: the position it was read from may read ahead again. */
function taken(next: string): void {
  for (const [k, from] of launched) if (from.next === next) launched.delete(k);
}

const keys = new Map<string, Buffer>();
const keyFor = (secret: string) => {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = cursorKey(secret)));
  return key;
};

const badCursor = () =>
  new V1Error(400, 'INVALID_FILTERS', 'One or more filters are invalid (cursor: not a cursor of this walk; start again without it).');

const fetchPage = (
  endpoint: Endpoint,
  filters: Record<string, string>,
  limit: number | undefined,
  state: CursorState,
  signal?: AbortSignal,
  onBytes?: (bytes: Uint8Array) => void,
) =>
  // Byte strings: the records are passed on as the upstream's bytes (or re-serialised as Latin-1), never read as text,
  // except the sport and league the scope is judged by.
  picksApi().listPage(
    endpoint,
    { ...filters, limit, cursor: state.upstream ?? undefined },
    { signal, priority: 'consumer' },
    onBytes,
    true,
  );

/** A position of a walk (the page size is not part of it: one read ahead per position). */
const aheadKey = (binding: CursorBinding, state: CursorState) =>
  JSON.stringify([binding.tokenId, binding.endpoint, binding.filters, binding.scope, state.segment, state.upstream]);

/** What a walk reads ahead with: the upstream request of each part of its plan, and the key of each page. */
interface Walk {
  endpoint: Endpoint;
  plan: Record<string, string>[];
  binding: CursorBinding;
  limit: number | undefined;
  token: ApiToken;
}

/** The state after a page: the next page of its part of the plan, the next part, or the end. */
function nextOf(list: PickList, state: CursorState, parts: number): CursorState | null {
  const more = list.page.hasMore && list.page.nextCursor ? list.page.nextCursor : null;
  if (more !== null) return { segment: state.segment, upstream: more };
  return state.segment + 1 < parts ? { segment: state.segment + 1, upstream: null } : null;
}

/**
 * Makes sure the page at `state` is being read, and (depth 2) the one after it as soon as its cursor is known:
 * the portal stays up to two pages ahead of a consumer that walks, so the upstream's time per page and the
 * consumer's own overlap instead of adding up.
 */
function readAhead(walk: Walk, state: CursorState, depth: number): void {
  const key = aheadKey(walk.binding, state);
  const entry = ahead.get(key);
  if (entry) {
    if (depth > 1 && entry.limit === walk.limit) followAhead(walk, state, entry.page, depth);
    return;
  }
  const now = Date.now();
  for (const [k, old] of ahead) if (now - old.at > AHEAD_MS || ahead.size >= AHEAD_MAX) ahead.delete(k);
  // Held in place at once, so that the position is read ahead once however many requests reach it meanwhile.
  let release: (page: Promise<UpstreamPage>) => void = () => undefined;
  const page = new Promise<UpstreamPage>((resolve) => (release = resolve));
  page.catch(() => undefined); // asked again, in the open, if the consumer comes for it
  ahead.set(key, { at: now, limit: walk.limit, page });
  void takeAheadRequest(walk.token).then((allowed) => {
    if (!allowed) {
      ahead.delete(key);
      release(Promise.reject(new Error('not read ahead: the token is at its rate')));
      return;
    }
    // The next cursor read from the bytes as they arrive (as walks do, lib/picks-api/walk.ts): the next page is asked
    // for before this one is parsed. A wrong guess is a page read for nothing, dropped unused.
    const guessNext = (bytes: Uint8Array) => {
      const guess = depth > 1 ? sniffNextCursor(bytes) : null;
      if (guess && guess !== state.upstream) readAhead(walk, { segment: state.segment, upstream: guess }, depth - 1);
    };
    const bound = AbortSignal.timeout(AHEAD_MS);
    release(
      fetchPage(walk.endpoint, walk.plan[state.segment]!, walk.limit, state, bound, guessNext).catch((error: unknown) => {
        if (bound.aborted) waitHitBound('read_ahead');
        throw error;
      }),
    );
  });
  if (depth > 1) followAhead(walk, state, page, depth);
}

/** Once the page at `state` is known, the one after it is read ahead too. */
function followAhead(walk: Walk, state: CursorState, page: Promise<UpstreamPage>, depth: number): void {
  page.then(
    (read) => {
      const next = nextOf(read.list, state, walk.plan.length);
      if (next) readAhead(walk, next, depth - 1);
    },
    () => undefined,
  );
}

/** The page read ahead for this position, when it was read with this page size. */
function takeAhead(key: string, limit: number | undefined): Promise<UpstreamPage> | null {
  const entry = ahead.get(key);
  if (!entry || entry.limit !== limit) return null;
  ahead.delete(key);
  taken(key);
  return Date.now() - entry.at <= AHEAD_MS ? entry.page : null;
}

export async function listAnswer(
  request: V1Request,
  token: ApiToken,
  endpoint: Endpoint,
  requestId: string,
  secret: string,
): Promise<{ body: Uint8Array | string; records: number }> {
  const query = parseV1Query(request.url.searchParams, endpoint);
  // Filtering by outcome tells outcomes: only a token that may read results may.
  if (query.filters.result !== undefined && !token.scope.content.includes('results'))
    throw new V1Error(403, 'OUT_OF_SCOPE', 'The result filter is outside this token’s scope: it may not read results.');
  // The licence is read (cached) only to say why a sport or league is refused: unknown to it, or outside the scope.
  const licence = needsLicence(token.scope, query.filters) ? await licenceOrNull() : null;
  const plan = planRequests(token.scope, query.filters, licence);
  const withheld = withheldFields(token.scope);
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
    for (let first = true; ; first = false) {
      const readying = first && query.cursor !== null ? takeAhead(aheadKey(binding, state), limit) : null;
      let fromAhead = readying !== null;
      const { list, bytes } = await (readying ?? fetchPage(endpoint, plan[state.segment]!, limit, state, request.signal)).catch(
        (error: unknown) => {
          // What was read ahead failed (or was not read): asked again now, for this request.
          if (!readying) return Promise.reject(error);
          fromAhead = false;
          return fetchPage(endpoint, plan[state.segment]!, limit, state, request.signal);
        },
      );
      // The upstream request this page cost was counted when it was read ahead: this request's count is given back.
      if (fromAhead) await giveBackRequest(token);
      // What the upstream sent is kept in the record history (and the index) in the background, as polls' pages are.
      observeApiPage(list, bytes);
      const next = nextOf(list, state, plan.length);
      // A part of the scope with nothing in it is passed over in the same request.
      if (list.data.length === 0 && !(list.page.hasMore && list.page.nextCursor) && next !== null) {
        state = next;
        continue;
      }
      if (next && query.cursor !== null && firstFrom(aheadKey(binding, state), aheadKey(binding, next)))
        readAhead({ endpoint, plan, binding, limit, token }, next, 2);
      // Inside the scope, and inside this part of the plan: an upstream that ignored a filter neither leaks records
      // outside the scope nor repeats those of another part.
      const part = plan[state.segment]!;
      const encoding = encodingOf(list);
      // A page read as byte strings: its sport and league as real text, what a scope names.
      const asText = (value: unknown) => (encoding === 'latin1' && typeof value === 'string' ? textOfByteString(value) : value);
      // A record without an id cannot be told apart, paged past or asked for again: API v1 promises every record's
      // id (its OpenAPI document types it a string), so one the upstream sent without is dropped (docs/api-v1.md).
      const kept = list.data.filter((record) => {
        const [sport, league] = [asText(record.sport), asText(record.league)];
        return (
          typeof record.id === 'string' &&
          record.id !== '' &&
          inScope({ sport, league, eventDate: record.eventDate }, token.scope) &&
          (!part.sport || sport === part.sport) &&
          (!part.league || league === part.league)
        );
      });
      served = kept.length;
      const page = { nextCursor: next ? sealCursor(next, binding, key) : null, hasMore: next !== null };
      const shown = withheld.length ? kept.map((record) => projectRecord(record, withheld)) : kept;
      return {
        body: envelope(shown, list.data.length, withheld.length ? null : bytes, page, requestId, encoding),
        records: kept.length,
      };
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
  /** latin1 for a page read as byte strings: re-serialised, its text gives the upstream's UTF-8 back. */
  encoding: 'latin1' | 'utf8',
) {
  const tail = `],"page":${JSON.stringify(page)},"requestId":${JSON.stringify(requestId)}}`;
  const spans = bytes && kept.length === sent && sent > 0 ? dataSpans(bytes) : null;
  if (!bytes || !spans || spans.length !== sent * 2) {
    const text = `{"data":[${kept.map((record) => JSON.stringify(record)).join(',')}${tail}`;
    return encoding === 'latin1' ? Buffer.from(text, 'latin1') : text;
  }
  // From the first record's start to the last one's end: the records and the separators between them, as sent.
  const records = Buffer.from(bytes.buffer, bytes.byteOffset + spans[0]!, spans[spans.length - 1]! - spans[0]!);
  return Buffer.concat([Buffer.from('{"data":['), records, Buffer.from(tail)]);
}
