import 'server-only';
import type { z } from 'zod';
import { AppError, isAppError } from '../errors';
import { errorFromResponse, networkError, parseJsonBody, parseRetryAfter, requestIdOf, throttledError } from './errors';
import { byteStringText, envelopeAsText, markByteStrings, readableAsByteStrings } from './byte-strings';
import { newWalkReport, settledPages } from './settle';
import { walkPages, type FetchPageBody } from './walk';
import { FILTER_KEYS, type PickFilters } from './filters';
import { createUpstreamGate, GATE_SLOT_BOUND_MS, isGatePaused, sleep, type GatePriority } from './gate';
import { waitHitBound } from '../waits';
import {
  DEFAULT_RETRY,
  outcomeOf,
  type CallOptions,
  type PicksClientOptions,
  type UpstreamOutcome,
  type WalkOptions,
} from './client-options';
import { fitsQuickly } from './quick-check';
import { redactSecrets } from './redact';
import { openObjectSchema, pickListSchema, pickSchema, resultListSchema, type OpenObject, type Pick, type PickList } from './schemas';

export type { CallOptions, PicksClientOptions, RetryPolicy, UpstreamOutcome, WalkOptions } from './client-options';
export { DEFAULT_RETRY } from './client-options';

const NEVER = new AbortController().signal;
const API_PREFIX = '/api/v1';
const MAX_ID_LENGTH = 512;

export type PicksClient = ReturnType<typeof createPicksClient>;

export function createPicksClient(options: PicksClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const gate = options.gate ?? createUpstreamGate(6);
  const doFetch = options.fetch ?? fetch;
  const random = options.random ?? Math.random;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxPages = options.maxPages ?? 10_000;
  const gateBounds = { ...GATE_SLOT_BOUND_MS, ...options.gateBoundsMs };

  function buildUrl(path: string, query?: Record<string, string | number | undefined>): string {
    // encodeURIComponent, not URLSearchParams: a space must travel as %20, never as a '+' some servers keep.
    const pairs = Object.entries(query ?? {})
      .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    return `${baseUrl}${API_PREFIX}${path}${pairs.length ? `?${pairs.join('&')}` : ''}`;
  }

  function backoff(attempt: number): number {
    return Math.floor(random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt));
  }

  /**
   * A turn at the gate within its lane's bound (GATE_SLOT_BOUND_MS); a pause longer than `maxWaitMs` is THROTTLED
   * at once. Running into either bound is counted (lib/waits.ts).
   */
  async function acquireWithin(lane: GatePriority, signal: AbortSignal | undefined, maxWaitMs: number): Promise<() => void> {
    const boundMs = gateBounds[lane] ?? null;
    const bound = boundMs === null ? undefined : AbortSignal.timeout(boundMs);
    const waiting = signal && bound ? AbortSignal.any([signal, bound]) : (signal ?? bound);
    try {
      return await gate.acquire(waiting, maxWaitMs, lane);
    } catch (error) {
      if (isGatePaused(error)) {
        waitHitBound('upstream_pause');
        throw throttledError(Math.ceil(error.remainingMs / 1000), null);
      }
      if (bound?.aborted && !signal?.aborted) {
        waitHitBound('gate_slot');
        throw new AppError({
          code: 'PORTAL_BUSY',
          message: `The portal is sending the Picks API as many requests as it may, and this one waited ${Math.round(boundMs! / 1000)} s for its turn. Try again shortly.`,
          retryAfterSeconds: 5,
        });
      }
      throw error;
    }
  }

  /** One GET with the gate, the timeout, the retry policy and the error mapping; returns the parsed JSON body. */
  async function getJson(
    path: string,
    query: Record<string, string | number | undefined> | undefined,
    call: CallOptions,
    onBytes?: (bytes: Uint8Array) => boolean,
  ): Promise<unknown> {
    const url = buildUrl(path, query);
    const signal = call.signal ?? options.defaultSignal?.() ?? undefined;
    for (let attempt = 0; ; attempt += 1) {
      const queuedAt = performance.now();
      // A page waits out a pause only within what is left of its own wait; longer, it says "throttled" at once.
      const bound = call.maxWaitMs === undefined ? options.defaultMaxWaitMs?.() : undefined;
      const pauseCap = bound === undefined ? retry.retryAfterCapMs : Math.min(bound, retry.retryAfterCapMs);
      const maxWaitMs = call.maxWaitMs ?? pauseCap;
      const lane = call.priority ?? 'page';
      const release = await acquireWithin(lane, signal, maxWaitMs);
      call.onRequest?.();
      const sentAt = performance.now();
      const answered = (outcome: UpstreamOutcome, requestId: string | null = null) => {
        call.onAnswer?.(outcome);
        options.observe?.({ path, outcome, ms: performance.now() - sentAt, requestId, attempt, queuedMs: sentAt - queuedAt, lane });
      };
      let failure: AppError;
      let waitMs: number;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        const res = await doFetch(url, {
          method: 'GET',
          headers: { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' },
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          cache: 'no-store',
          redirect: 'error',
        });
        const bytes = new Uint8Array(await res.arrayBuffer());
        // The upstream's request id (body, or a header whose name the spec leaves open) goes to the request's log line.
        const headerId = res.headers.get('x-request-id') ?? res.headers.get('request-id');
        if (res.ok) {
          const asByteStrings = onBytes?.(bytes) === true;
          let body: unknown;
          try {
            body = parseJsonBody(res, asByteStrings ? byteStringText(bytes) : utf8.decode(bytes));
          } catch (error) {
            answered(outcomeOf(res.status), headerId);
            throw error;
          }
          answered(outcomeOf(res.status), requestIdOf(body) ?? headerId);
          return body;
        }

        failure = errorFromResponse(res, utf8.decode(bytes), options.apiKey);
        answered(outcomeOf(res.status), failure.requestId ?? headerId);
        if (res.status === 429) {
          const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
          waitMs = retryAfterMs ?? backoff(attempt);
          gate.coolDown(waitMs);
          if (retryAfterMs !== null && retryAfterMs > pauseCap) {
            waitHitBound('upstream_pause');
            throw failure;
          }
        } else if (res.status >= 500) {
          waitMs = backoff(attempt);
        } else {
          throw failure; // 400, 401, 403, 404 and other refusals: asking again changes nothing
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (isAppError(error)) throw error;
        failure = networkError(error);
        answered(failure.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'network');
        if (failure.code === 'UPSTREAM_TIMEOUT') waitHitBound('upstream_answer');
        waitMs = backoff(attempt);
      } finally {
        release();
      }
      if (attempt >= retry.maxRetries) throw failure;
      await sleep(waitMs, signal);
    }
  }

  /** Checks a body against its schema; a mismatch is UPSTREAM_MALFORMED naming the first wrong field. */
  function check<T extends z.ZodType>(
    schema: T,
    body: unknown,
    what: string,
    keepBody = false,
    requestId = requestIdOf(body),
  ): z.output<T> {
    if (fitsQuickly(schema, body)) return body as z.output<T>; // output equals input for these (quick-check.ts)
    const parsed = schema.safeParse(body);
    // keepBody (schemas without transforms only): the schema checked the body, so hand back the body itself;
    // records keep the exact shape and key order the upstream delivered (exports promise that), uncopied.
    if (parsed.success) return keepBody ? (body as z.output<T>) : parsed.data;
    const issue = parsed.error.issues[0];
    throw new AppError({
      code: 'UPSTREAM_MALFORMED',
      message: `The Picks API sent ${what} in an unexpected shape (${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid'}).`,
      requestId,
    });
  }

  async function getParsed<T extends z.ZodType>(
    schema: T,
    path: string,
    query: Record<string, string | number | undefined> | undefined,
    call: CallOptions,
    what: string,
    keepBody = false,
  ): Promise<z.output<T>> {
    return check(schema, await getJson(path, query, call), what, keepBody);
  }

  const filterQuery = (filters: PickFilters, keys: readonly string[] = FILTER_KEYS.picks) =>
    Object.fromEntries(keys.map((key) => [key, filters[key as keyof PickFilters]]));

  async function* records(pages: AsyncIterable<PickList>): AsyncGenerator<Pick> {
    for await (const page of pages) yield* page.data;
  }

  const me = async (call: CallOptions = {}): Promise<OpenObject> =>
    redactSecrets(await getParsed(openObjectSchema, '/me', undefined, call, 'the licence', true), options.apiKey);
  const health = (call: CallOptions = {}): Promise<OpenObject> =>
    getParsed(openObjectSchema, '/health', undefined, call, 'its health', true);
  const listPicks = (filters: PickFilters, call: CallOptions = {}): Promise<PickList> =>
    getParsed(pickListSchema, '/picks', filterQuery(filters), call, 'a page of picks', true);
  const listResults = (filters: PickFilters, call: CallOptions = {}): Promise<PickList> =>
    getParsed(resultListSchema, '/results', filterQuery(filters), call, 'a page of results');

  /**
   * One page of /picks or /results with the bytes it was parsed from (the portal's API v1 hands records on as
   * the upstream sent them). `query` is sent as given: filters, limit and cursor.
   */
  async function listPage(
    endpoint: 'picks' | 'results',
    query: Record<string, string | number | undefined>,
    call: CallOptions = {},
    /** Given the raw bytes as they arrive, before they are parsed (a reader ahead guesses the next cursor from them). */
    onBytes?: (bytes: Uint8Array) => void,
    /** The caller passes records on as bytes: a body that allows it is read as byte strings (byte-strings.ts), the page marked. */
    byteStrings = false,
  ): Promise<{ list: PickList; bytes: Uint8Array | null }> {
    let bytes: Uint8Array | null = null;
    let asByteStrings = false;
    const body = await getJson(`/${endpoint}`, query, call, (raw) => {
      bytes = raw;
      onBytes?.(raw);
      asByteStrings = byteStrings && readableAsByteStrings(raw);
      return asByteStrings;
    });
    if (asByteStrings) envelopeAsText(body);
    const list =
      endpoint === 'picks' ? check(pickListSchema, body, 'a page of picks', true) : check(resultListSchema, body, 'a page of results');
    return { list: asByteStrings ? markByteStrings(list) : list, bytes };
  }

  async function getPick(id: string, call: CallOptions = {}): Promise<Pick> {
    // '.' and '..' would be resolved away by URL parsing, even percent-encoded: they can never name a pick.
    if (!id || id === '.' || id === '..' || id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(id)) {
      throw new AppError({ code: 'NOT_FOUND', message: 'No pick has that id.' });
    }
    const body = await getJson(`/picks/${encodeURIComponent(id)}`, undefined, call);
    // The spec leaves open whether the pick comes bare or wrapped in { data }.
    const wrapped = body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body;
    return check(pickSchema, wrapped ? body.data : body, 'a pick', false, requestIdOf(body));
  }

  /** Every page of a list, each record once, settled while the upstream moves (settle.ts). */
  const pageWalker =
    (path: string, validate: (body: unknown) => PickList) =>
    (filters: PickFilters, call: WalkOptions = {}) => {
      const fetchBody: FetchPageBody = (cursor, signal, onBytes) =>
        getJson(
          path,
          filterQuery({ ...filters, limit: call.pageSize ?? 200, cursor }),
          { signal, onRequest: call.onRequest, onAnswer: call.onAnswer, priority: call.priority ?? 'bulk' },
          onBytes,
        );
      const pass = () => walkPages(fetchBody, validate, { signal: call.signal, maxPages, byteStrings: call.byteStrings });
      const probe = async (cursor: string | undefined) => {
        const body = await fetchBody(cursor, call.signal ?? NEVER, () => false);
        const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
        return Array.isArray(data) ? data.map((r) => (r && typeof r === 'object' && typeof r.id === 'string' && r.id ? r.id : null)) : null;
      };
      return settledPages(pass, probe, { report: call.report ?? newWalkReport(), unsettled: call.unsettled });
    };
  const walkPickPages = pageWalker('/picks', (body) => check(pickListSchema, body, 'a page of picks', true));
  const walkResultPages = pageWalker('/results', (body) => check(resultListSchema, body, 'a page of results'));

  return {
    me,
    health,
    listPicks,
    listResults,
    listPage,
    getPick,
    walkPickPages,
    walkResultPages,
    /** Every pick matching the filters, page after page (spec §4.2): `for await (const pick of walkPicks(f))`. */
    walkPicks: (filters: PickFilters, call: WalkOptions = {}) => records(walkPickPages(filters, call)),
    walkResults: (filters: PickFilters, call: WalkOptions = {}) => records(walkResultPages(filters, call)),
  };
}

/** Decodes bodies as Response.text() does (UTF-8, a leading BOM dropped, bad bytes replaced). */
const utf8 = new TextDecoder();
