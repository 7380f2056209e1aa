import type http from 'node:http';
import { ApiError, sendJson } from './respond';

/**
 * Test-only controls of the sandbox (never of the portal): its clock, records retracted from delivery,
 * and content edits. Reachable over HTTP under /__sandbox/ only when the sandbox was started with test
 * hooks (SANDBOX_TEST_HOOKS=1), so end-to-end tests can move the upstream's world while a portal watches.
 */

export interface Edit {
  fields: Record<string, unknown>;
  /** When the edit was made: the record's publishedAt moves to it. */
  atMs: number;
}

export function createControls(initial: () => number) {
  let clock = initial;
  return {
    now: () => clock(),
    /** Freezes the clock at `ms`. */
    setNow(ms: number) {
      clock = () => ms;
    },
    retracted: new Set<string>(),
    edits: new Map<string, Edit>(),
    /**
     * 'position' (the default): a cursor is a place in the sandbox's fixed order, so nothing published or
     * withdrawn moves it. 'offset': a cursor counts the records served before it, as some real upstreams'
     * do (within the spec): a record published before it is served twice, one withdrawn before it skips one.
     */
    cursors: 'position' as 'position' | 'offset',
    /** List pages served (picks and results), and what to do after the n-th: the world moving under a walk. */
    pagesServed: 0,
    pageEvents: [] as PageEvent[],
    /** Retract, or restore, this record after every list page served: a set that never stops moving. */
    churn: null as string | null,
    /** Answer the next `remaining` API requests (null: until cleared) with this status instead: outages, storms, refusals. */
    forced: null as Forced | null,
  };
}

export interface Forced {
  status: number;
  remaining: number | null;
  retryAfterSeconds: number | null;
  /** Only every n-th API request is forced (a storm a client's retries get through); null: every one. */
  every: number | null;
  seen: number;
}

const FORCED_CODES: Record<number, [string, string]> = {
  401: ['UNAUTHORIZED', 'Missing or invalid credentials.'],
  403: ['LICENCE_UNAVAILABLE', 'Licence access is unavailable.'],
  429: ['THROTTLED', 'Delivery throttled; retry later.'],
  500: ['INTERNAL', 'The sandbox failed.'],
  502: ['BAD_GATEWAY', 'The sandbox failed.'],
  503: ['UNAVAILABLE', 'The sandbox is unavailable.'],
};

/** The forced answer for this request, if one is set (counted down); called for every API request but /health. */
export function forcedAnswer(controls: Controls): ApiError | null {
  const forced = controls.forced;
  if (!forced) return null;
  if (forced.every !== null && ++forced.seen % forced.every !== 0) return null;
  if (forced.remaining !== null && --forced.remaining <= 0) controls.forced = null;
  const [code, message] = FORCED_CODES[forced.status]!;
  const headers: Record<string, string> = forced.retryAfterSeconds === null ? {} : { 'Retry-After': String(forced.retryAfterSeconds) };
  return new ApiError(forced.status, code, message, headers);
}

/** What /__sandbox/licence may change of a key's licence (./server.ts applies it). */
export interface LicenceChange {
  key?: string;
  sports?: string[];
  active?: boolean;
}

export interface PageEvent {
  /** After this many list pages served in all (counted from when the event was set). */
  afterPages: number;
  retract?: string[];
  restore?: string[];
}

/** Called after each list page is served: due events happen now, between this page and the next. */
export function afterListPage(controls: Controls): void {
  controls.pagesServed += 1;
  const due = controls.pageEvents.filter((event) => event.afterPages <= controls.pagesServed);
  controls.pageEvents = controls.pageEvents.filter((event) => event.afterPages > controls.pagesServed);
  for (const event of due) {
    for (const id of event.retract ?? []) controls.retracted.add(id);
    for (const id of event.restore ?? []) controls.retracted.delete(id);
  }
  if (controls.churn !== null) {
    if (controls.retracted.has(controls.churn)) controls.retracted.delete(controls.churn);
    else controls.retracted.add(controls.churn);
  }
}

export type Controls = ReturnType<typeof createControls>;

const readBody = (req: http.IncomingMessage) =>
  new Promise<unknown>((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk).length > 1_000_000 && req.destroy());
    req.on('end', () => {
      try {
        resolve(JSON.parse(text || '{}'));
      } catch {
        reject(new ApiError(400, 'BAD_HOOK', 'The body is not JSON.'));
      }
    });
    req.on('error', reject);
  });

const ids = (body: Record<string, unknown>): string[] => {
  if (!Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string'))
    throw new ApiError(400, 'BAD_HOOK', 'ids: a list of pick ids.');
  return body.ids as string[];
};

/**
 * POST /__sandbox/clock {now|advanceMs}, /retract {ids}, /restore {ids}, /edit {id, fields},
 * /cursors {mode: "position"|"offset"}, /during-walk {events: [{afterPages, retract?, restore?}], churn?: id|null},
 * /answers {status: 401|403|429|500|502|503, count?, every?, retryAfter?} or {status: null}, /licence {key?, sports?, active?}.
 */
export async function handleHook(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
  controls: Controls,
  known: (id: string) => boolean,
  requestId: string,
  relicense: (change: LicenceChange) => Record<string, unknown>,
): Promise<void> {
  if (req.method !== 'POST') throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Hooks take POST.', { Allow: 'POST' });
  const body = (await readBody(req)) as Record<string, unknown>;
  switch (pathname) {
    case '/__sandbox/clock': {
      const target = typeof body.now === 'string' ? Date.parse(body.now) : controls.now() + Number(body.advanceMs);
      if (!Number.isFinite(target)) throw new ApiError(400, 'BAD_HOOK', 'now: an ISO timestamp, or advanceMs: milliseconds.');
      controls.setNow(target);
      return sendJson(res, 200, { now: new Date(target).toISOString() }, requestId);
    }
    case '/__sandbox/retract':
    case '/__sandbox/restore': {
      const list = ids(body);
      const unknown = list.filter((id) => !known(id));
      if (unknown.length > 0) throw new ApiError(404, 'PICK_NOT_FOUND', `Unknown ids: ${unknown.join(', ')}`);
      for (const id of list) {
        if (pathname.endsWith('retract')) controls.retracted.add(id);
        else controls.retracted.delete(id);
      }
      return sendJson(res, 200, { retracted: [...controls.retracted] }, requestId);
    }
    case '/__sandbox/edit': {
      const id = String(body.id);
      if (!known(id)) throw new ApiError(404, 'PICK_NOT_FOUND', 'No pick has that id.');
      if (body.fields === null || typeof body.fields !== 'object') throw new ApiError(400, 'BAD_HOOK', 'fields: an object.');
      const previous = controls.edits.get(id)?.fields ?? {};
      controls.edits.set(id, { fields: { ...previous, ...(body.fields as Record<string, unknown>) }, atMs: controls.now() });
      return sendJson(res, 200, { id }, requestId);
    }
    case '/__sandbox/cursors': {
      if (body.mode !== 'position' && body.mode !== 'offset') throw new ApiError(400, 'BAD_HOOK', 'mode: "position" or "offset".');
      controls.cursors = body.mode;
      return sendJson(res, 200, { cursors: controls.cursors }, requestId);
    }
    case '/__sandbox/during-walk': {
      const events = Array.isArray(body.events) ? (body.events as PageEvent[]) : [];
      for (const event of events) {
        if (!Number.isInteger(event.afterPages) || event.afterPages < 0) throw new ApiError(400, 'BAD_HOOK', 'afterPages: a whole number.');
        const unknown = [...(event.retract ?? []), ...(event.restore ?? [])].filter((id) => !known(id));
        if (unknown.length > 0) throw new ApiError(404, 'PICK_NOT_FOUND', `Unknown ids: ${unknown.join(', ')}`);
      }
      controls.pageEvents = events.map((event) => ({ ...event, afterPages: controls.pagesServed + event.afterPages }));
      if (body.churn !== undefined) controls.churn = typeof body.churn === 'string' && known(body.churn) ? body.churn : null;
      return sendJson(res, 200, { pending: controls.pageEvents.length, churn: controls.churn }, requestId);
    }
    case '/__sandbox/answers': {
      if (body.status === null) {
        controls.forced = null;
        return sendJson(res, 200, { forced: null }, requestId);
      }
      const status = Number(body.status);
      const count = body.count === undefined || body.count === null ? null : Number(body.count);
      const retryAfter = body.retryAfter === undefined ? null : Number(body.retryAfter);
      const every = body.every === undefined ? null : Number(body.every);
      if (every !== null && (!Number.isInteger(every) || every < 1)) throw new ApiError(400, 'BAD_HOOK', 'every: a whole number ≥ 1.');
      if (!FORCED_CODES[status]) throw new ApiError(400, 'BAD_HOOK', `status: one of ${Object.keys(FORCED_CODES).join(', ')}, or null.`);
      if (count !== null && (!Number.isInteger(count) || count < 1)) throw new ApiError(400, 'BAD_HOOK', 'count: a whole number ≥ 1.');
      if (retryAfter !== null && (!Number.isInteger(retryAfter) || retryAfter < 0))
        throw new ApiError(400, 'BAD_HOOK', 'retryAfter: whole seconds.');
      controls.forced = { status, remaining: count, retryAfterSeconds: retryAfter, every, seen: 0 };
      return sendJson(res, 200, { forced: controls.forced }, requestId);
    }
    case '/__sandbox/licence': {
      const change: LicenceChange = {};
      if (body.key !== undefined) change.key = String(body.key);
      if (body.sports !== undefined) {
        if (!Array.isArray(body.sports) || !body.sports.every((s) => typeof s === 'string'))
          throw new ApiError(400, 'BAD_HOOK', 'sports: a list of sport names.');
        change.sports = body.sports as string[];
      }
      if (body.active !== undefined) change.active = body.active === true;
      return sendJson(res, 200, relicense(change), requestId);
    }
    default:
      throw new ApiError(404, 'NOT_FOUND', 'No such hook.');
  }
}
