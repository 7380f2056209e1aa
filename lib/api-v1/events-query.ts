import { V1Error } from '../tokens/refusal';
import type { V1Request } from './request';

/**
 * What a consumer asks of GET /api/v1/events: where to resume (`Last-Event-ID`, which an EventSource sends when it
 * reconnects, before `?after=`), and for a JSON page how many events. Every wrong parameter is named at once.
 */

export const MAX_EVENTS_PAGE = 1_000;
export const DEFAULT_EVENTS_PAGE = 100;
/** An event id or a count as a consumer writes it: a whole number, no sign, no leading zero. */
export const WHOLE = /^(0|[1-9]\d{0,15})$/;

export interface EventsQuery {
  /** Resume after this event id; null: none named. */
  after: number | null;
  limit: number;
  /** The consumer asked for server-sent events (`Accept: text/event-stream`). */
  stream: boolean;
}

export const wantsStream = (request: V1Request) => /\btext\/event-stream\b/i.test(request.header('accept') ?? '');

export function parseEventsQuery(request: V1Request): EventsQuery {
  const problems = new Map<string, string>();
  const params = request.url.searchParams;
  for (const key of new Set(params.keys()))
    if (key !== 'after' && key !== 'limit') problems.set(key.slice(0, 40), 'is not a parameter of /api/v1/events (after, limit)');
  for (const key of ['after', 'limit']) if (params.getAll(key).length > 1) problems.set(key, 'is given more than once');
  const idOf = (value: string | null, name: string) => {
    if (value === null || value === '') return null;
    if (WHOLE.test(value.trim())) return Number(value.trim());
    problems.set(name, 'must be an event id: a whole number, 0 for the oldest event kept');
    return null;
  };
  const header = request.header('last-event-id');
  // An EventSource reconnecting sends the last id it saw; the URL still holds the first `after`.
  const after = header !== null && header.trim() !== '' ? idOf(header, 'Last-Event-ID') : idOf(params.get('after'), 'after');
  let limit = DEFAULT_EVENTS_PAGE;
  const asked = params.get('limit');
  if (asked !== null) {
    if (WHOLE.test(asked) && Number(asked) >= 1 && Number(asked) <= MAX_EVENTS_PAGE) limit = Number(asked);
    else problems.set('limit', `must be a whole number from 1 to ${MAX_EVENTS_PAGE}`);
  }
  if (problems.size > 0) {
    const said = [...problems].map(([key, problem]) => `${key} ${problem}`).join('; ');
    throw new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: ${said}.`);
  }
  return { after, limit, stream: wantsStream(request) };
}
