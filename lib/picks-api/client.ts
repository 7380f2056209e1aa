import 'server-only';
import type { z } from 'zod';
import { AppError, isAbortError, isAppError } from '../errors';
import type { PickFilters } from '../filters';
import { createUpstreamGate, isGatePaused, sleep, type GatePriority, type UpstreamGate } from './gate';
import { redactSecrets } from './redact';
import {
  errorBodySchema,
  openObjectSchema,
  pageSchema,
  pickListSchema,
  pickSchema,
  resultListSchema,
  type OpenObject,
  type Pick,
  type PickList,
} from './schemas';

export interface RetryPolicy {
  /** Retries after the first attempt (the spec-conscious maximum is 3). */
  maxRetries: number;
  /** First backoff step; attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)] (full jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest Retry-After we wait out; a longer one fails at once with the wait in the error. */
  retryAfterCapMs: number;
}

export interface PicksClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  gate?: UpstreamGate;
  fetch?: typeof fetch;
  random?: () => number;
  /** Longest walk of one list, in pages; more means the upstream's cursors never end. */
  maxPages?: number;
  /** The signal of calls made without one (pages: React's render signal, aborted when the browser goes away). */
  defaultSignal?: () => AbortSignal | null | undefined;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Called for every HTTP request sent upstream, retries included (coverage reports its cost). */
  onRequest?: () => void;
  /** Queue order at the shared gate: 'page' (default) before 'bulk' (walks of exports and coverage). */
  priority?: GatePriority;
}

export interface WalkOptions extends CallOptions {
  /** Page size asked of the upstream; the spec's maximum by default, so a walk needs the fewest requests. */
  pageSize?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 4_000, retryAfterCapMs: 30_000 };
const API_PREFIX = '/api/v1';
const QUERY_KEYS = ['sport', 'league', 'status', 'result', 'from', 'to', 'limit', 'cursor'] as const;
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

  /** One GET with the gate, the timeout, the retry policy and the error mapping; returns the parsed JSON body. */
  async function getJson(path: string, query: Record<string, string | number | undefined> | undefined, call: CallOptions, onBytes?: (bytes: Uint8Array) => void): Promise<unknown> {
    const url = buildUrl(path, query);
    const signal = call.signal ?? options.defaultSignal?.() ?? undefined;
    for (let attempt = 0; ; attempt += 1) {
      const release = await gate.acquire(signal, retry.retryAfterCapMs, call.priority).catch((error: unknown) => {
        if (isGatePaused(error)) throw throttledError(Math.ceil(error.remainingMs / 1000), null);
        throw error;
      });
      call.onRequest?.();
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
        if (res.ok) {
          onBytes?.(bytes);
          return parseJsonBody(res, utf8.decode(bytes));
        }

        failure = errorFromResponse(res, utf8.decode(bytes));
        if (res.status === 429) {
          const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
          waitMs = retryAfterMs ?? backoff(attempt);
          gate.coolDown(waitMs);
          if (retryAfterMs !== null && retryAfterMs > retry.retryAfterCapMs) throw failure;
        } else if (res.status >= 500) {
          waitMs = backoff(attempt);
        } else {
          throw failure; // 400, 401, 403, 404 and other refusals: asking again changes nothing
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (isAppError(error)) throw error;
        failure = networkError(error);
        waitMs = backoff(attempt);
      } finally {
        release();
      }
      if (attempt >= retry.maxRetries) throw failure;
      await sleep(waitMs, signal);
    }
  }

  /** Checks a body against its schema; a mismatch is UPSTREAM_MALFORMED naming the first wrong field. */
  function check<T extends z.ZodType>(schema: T, body: unknown, what: string, keepBody = false): z.output<T> {
    const parsed = schema.safeParse(body);
    // keepBody (schemas without transforms only): the schema checked the body, so hand back the body itself;
    // records keep the exact shape and key order the upstream delivered (exports promise that), uncopied.
    if (parsed.success) return keepBody ? (body as z.output<T>) : parsed.data;
    const issue = parsed.error.issues[0];
    throw new AppError({
      status: 502,
      code: 'UPSTREAM_MALFORMED',
      message: `The Picks API sent ${what} in an unexpected shape (${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid'}).`,
      requestId: requestIdOf(body),
    });
  }

  async function getParsed<T extends z.ZodType>(schema: T, path: string, query: Record<string, string | number | undefined> | undefined, call: CallOptions, what: string, keepBody = false): Promise<z.output<T>> {
    return check(schema, await getJson(path, query, call), what, keepBody);
  }

  const filterQuery = (filters: PickFilters, keys: readonly string[] = QUERY_KEYS) =>
    Object.fromEntries(keys.map((key) => [key, filters[key as keyof PickFilters]]));

  /**
   * Every page of a list (spec §4.2), one request ahead. The next page is asked for as soon as this one's
   * bytes arrive, with the cursor read straight from them (sniffNextCursor), so the upstream works while
   * we decode, parse and validate; the parsed paging block then confirms the guess, or the guessed request
   * is cancelled and the right one sent. Cursors that repeat, go missing or never end stop the walk.
   */
  async function* walkPages(fetchBody: (cursor: string | undefined, signal: AbortSignal, onBytes: (bytes: Uint8Array) => void) => Promise<unknown>, validate: (body: unknown) => PickList, call: CallOptions): AsyncGenerator<PickList> {
    // Our own controller: when the consumer stops early (break, throw), the requests ahead are cancelled too.
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (call.signal?.aborted) onAbort();
    const seen = new Set<string>();
    let requested = 0;

    /** One upstream request of the walk, and the request its bytes let us guess should follow it. */
    interface Request { cursor: string | undefined; body: Promise<unknown>; bytes: Uint8Array | null; guess: Request | null; cancel: () => void }
    let current: Request;
    let waiting = false; // the walk is waiting for current: its consumer has asked for the next page
    const request = (cursor: string | undefined): Request => {
      const own = new AbortController();
      const stop = () => own.abort(controller.signal.reason);
      controller.signal.addEventListener('abort', stop, { once: true });
      requested += 1;
      const self: Request = { cursor, guess: null, bytes: null, body: Promise.resolve(), cancel: () => (own.abort(), self.guess?.cancel()) };
      self.body = fetchBody(cursor, own.signal, (bytes) => {
        self.bytes = bytes;
        // Only from the page the walk's consumer is waiting for: never more than one page ahead of the reader.
        if (!waiting || self !== current || own.signal.aborted || requested >= maxPages) return;
        const guess = sniffNextCursor(bytes);
        if (guess !== null && guess !== cursor && !seen.has(guess)) self.guess = request(guess);
      });
      // Awaited on its turn, so not an unhandled rejection meanwhile; once settled it needs no abort listener.
      self.body.catch(() => undefined).finally(() => controller.signal.removeEventListener('abort', stop));
      return self;
    };

    try {
      current = request(undefined);
      for (let pageNumber = 1; ; pageNumber += 1) {
        waiting = true;
        const body = await current.body.finally(() => (waiting = false));
        const { guess: guessed, bytes } = current;
        // Unlink what is used: settled requests chained to each other kept every page reachable for a while (measured).
        current.guess = null;
        current.bytes = null;
        current.body = SETTLED;
        const paging = pageSchema.safeParse((body as { page?: unknown } | null)?.page);
        const hasMore = paging.success && paging.data.hasMore;
        const nextCursor = hasMore ? paging.data.nextCursor : undefined;
        if (guessed && guessed.cursor !== nextCursor) guessed.cancel(); // a wrong guess: that request is dropped
        if (hasMore) {
          if (!nextCursor) throw paginationError('said there are more pages but gave no cursor', body);
          if (seen.has(nextCursor)) throw paginationError('repeated a cursor it had already given', body);
          if (pageNumber >= maxPages) throw paginationError(`kept paging past ${maxPages} pages`, body);
          seen.add(nextCursor);
          current = guessed && guessed.cursor === nextCursor ? guessed : request(nextCursor);
        }
        const list = validate(body);
        if (bytes) Object.defineProperty(list, PAGE_BYTES, { value: bytes, enumerable: false });
        yield list;
        if (!hasMore) return;
      }
    } finally {
      call.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  async function* records(pages: AsyncIterable<PickList>): AsyncGenerator<Pick> {
    for await (const page of pages) yield* page.data;
  }

  const me = async (call: CallOptions = {}): Promise<OpenObject> =>
    redactSecrets(await getParsed(openObjectSchema, '/me', undefined, call, 'the licence', true), options.apiKey);
  const health = (call: CallOptions = {}): Promise<OpenObject> => getParsed(openObjectSchema, '/health', undefined, call, 'its health', true);
  const listPicks = (filters: PickFilters, call: CallOptions = {}): Promise<PickList> =>
    getParsed(pickListSchema, '/picks', filterQuery(filters), call, 'a page of picks', true);
  const listResults = (filters: PickFilters, call: CallOptions = {}): Promise<PickList> =>
    getParsed(resultListSchema, '/results', filterQuery(filters), call, 'a page of results');

  async function getPick(id: string, call: CallOptions = {}): Promise<Pick> {
    // '.' and '..' would be resolved away by URL parsing, even percent-encoded: they can never name a pick.
    if (!id || id === '.' || id === '..' || id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(id)) {
      throw new AppError({ status: 404, code: 'NOT_FOUND', message: 'No pick has that id.' });
    }
    const body = await getJson(`/picks/${encodeURIComponent(id)}`, undefined, call);
    const record = body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body ? body.data : body;
    const parsed = pickSchema.safeParse(record);
    if (parsed.success) return parsed.data;
    throw new AppError({ status: 502, code: 'UPSTREAM_MALFORMED', message: 'The Picks API sent a pick in an unexpected shape.', requestId: requestIdOf(body) });
  }

  const pageWalker = (path: string, validate: (body: unknown) => PickList) => (filters: PickFilters, call: WalkOptions = {}) =>
    walkPages((cursor, signal, onBytes) => getJson(path, filterQuery({ ...filters, limit: call.pageSize ?? 200, cursor }), { signal, onRequest: call.onRequest, priority: call.priority ?? 'bulk' }, onBytes), validate, call);
  const walkPickPages = pageWalker('/picks', (body) => check(pickListSchema, body, 'a page of picks', true));
  const walkResultPages = pageWalker('/results', (body) => check(resultListSchema, body, 'a page of results'));

  return {
    me,
    health,
    listPicks,
    listResults,
    getPick,
    walkPickPages,
    walkResultPages,
    /** Every pick matching the filters, page after page (spec §4.2): `for await (const pick of walkPicks(f))`. */
    walkPicks: (filters: PickFilters, call: WalkOptions = {}) => records(walkPickPages(filters, call)),
    walkResults: (filters: PickFilters, call: WalkOptions = {}) => records(walkResultPages(filters, call)),
    gate,
  };
}

const SETTLED: Promise<unknown> = Promise.resolve();
const PAGE_BYTES = Symbol('page bytes');

/**
 * The body a walked page was parsed from, as the upstream sent it (undefined for pages not from a walk).
 * The JSON export copies records from it instead of re-serialising them.
 */
export function pageBytes(page: PickList): Uint8Array | undefined {
  return (page as PickList & { [PAGE_BYTES]?: Uint8Array })[PAGE_BYTES];
}

/** Decodes bodies as Response.text() does (UTF-8, a leading BOM dropped, bad bytes replaced). */
const utf8 = new TextDecoder();
const CURSOR_KEY = Buffer.from('"nextCursor"');
const CURSOR_VALUE = /^"nextCursor"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.){1,4096}")/;

/**
 * page.nextCursor read from a body's bytes without parsing the body: a guess that lets the next request
 * leave before this page is decoded and parsed (about 1.5 ms for 200 records). The page block usually
 * ends the body, so the search from the end finds it at once. Null when there is no string cursor to
 * read; a wrong guess costs one cancelled request, as walkPages checks it against the parsed page.
 */
export function sniffNextCursor(bytes: Uint8Array): string | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buffer.lastIndexOf(CURSOR_KEY);
  if (at < 0) return null;
  const match = CURSOR_VALUE.exec(buffer.toString('utf8', at, at + 8_400));
  if (!match) return null;
  try {
    const value: unknown = JSON.parse(match[1]!);
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}

function parseJsonBody(res: Response, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const type = res.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
    throw new AppError({
      status: 502,
      code: 'UPSTREAM_MALFORMED',
      message: text.trim() === ''
        ? `The Picks API sent an empty body (HTTP ${res.status}).`
        : `The Picks API sent something that is not JSON (${type}, HTTP ${res.status}).`,
      requestId: res.headers.get('x-request-id'),
    });
  }
}

function requestIdOf(body: unknown): string | null {
  if (body && typeof body === 'object' && 'requestId' in body && typeof body.requestId === 'string') return body.requestId;
  return null;
}

/** The upstream's refusal as an AppError. Messages are ours, so nothing the upstream says is shown unchecked. */
export function errorFromResponse(res: Response, text: string): AppError {
  let body: z.infer<typeof errorBodySchema>['error'] | undefined;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) body = parsed.data.error;
  } catch {
    // an HTML error page or an empty body: the status alone tells what happened
  }
  const requestId = body?.requestId ?? res.headers.get('x-request-id');
  const upstreamCode = body?.code ?? undefined;
  switch (res.status) {
    case 400:
      return new AppError({
        status: 400,
        code: upstreamCode === 'INVALID_FILTERS' || !upstreamCode ? 'INVALID_FILTERS' : upstreamCode,
        message: safeText(body?.message) ?? 'One or more filters are invalid.',
        requestId,
      });
    case 401:
      return new AppError({
        status: 502,
        code: 'UPSTREAM_UNAUTHORIZED',
        message: "The portal's API key was refused by the Picks API. Ask a portal administrator to check the key.",
        requestId,
      });
    case 403:
      return new AppError({ status: 403, code: 'LICENCE_UNAVAILABLE', message: 'Licence access is unavailable for this partner.', requestId });
    case 404:
      return new AppError({ status: 404, code: 'NOT_FOUND', message: 'The Picks API has no such record.', requestId });
    case 429: {
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      return throttledError(retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000), requestId);
    }
    default:
      return new AppError({
        status: 502,
        code: 'UPSTREAM_ERROR',
        message: `The Picks API failed (HTTP ${res.status}).`,
        requestId,
      });
  }
}

function throttledError(seconds: number | null, requestId: string | null): AppError {
  const wait = seconds === null ? null : Math.max(1, seconds);
  return new AppError({
    status: 429,
    code: 'THROTTLED',
    message: `The Picks API is throttling requests. Try again in ${wait ?? 'a few'} s.`,
    requestId,
    retryAfterSeconds: wait ?? 5,
  });
}

function networkError(error: unknown): AppError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  return new AppError({
    status: timedOut ? 504 : 503,
    code: timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
    message: timedOut ? 'The Picks API did not answer in time.' : 'The Picks API could not be reached.',
    cause: isAbortError(error) || error instanceof Error ? error : undefined,
  });
}

function paginationError(what: string, body: unknown): AppError {
  return new AppError({ status: 502, code: 'PAGINATION_BROKEN', message: `The Picks API ${what}; the list was stopped.`, requestId: requestIdOf(body) });
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in ms; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function safeText(value: string | null | undefined): string | null {
  if (!value) return null;
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return clean ? clean.slice(0, 300) : null;
}
