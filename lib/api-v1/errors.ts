import { isAppError } from '../errors';
import type { V1ErrorBody } from './shapes';
import { V1Error } from '../tokens/refusal';

/**
 * The portal's API v1 answers errors exactly as the spec describes the upstream's (§7): `{ "error": { "code",
 * "message", "requestId" } }`, the message safe for display, private and non-cacheable. Errors met upstream
 * are told in the consumer's terms: never the portal's key, never the upstream's own text.
 */

export const V1_HEADERS = {
  'Cache-Control': 'private, no-store',
  'Content-Type': 'application/json; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** What the portal met on the way (the upstream refusing, failing, throttling), as a consumer should hear it. */
export function toV1Error(error: unknown): V1Error {
  if (error instanceof V1Error) return error;
  if (!isAppError(error)) return new V1Error(500, 'INTERNAL', 'The portal hit an unexpected error.');
  switch (error.code) {
    case 'INVALID_FILTERS':
      return new V1Error(400, 'INVALID_FILTERS', 'One or more filters are invalid.');
    case 'NOT_FOUND':
      return new V1Error(404, 'NOT_FOUND', 'No pick has that id.');
    case 'LICENCE_UNAVAILABLE':
      return new V1Error(403, 'LICENCE_UNAVAILABLE', 'Licence access is unavailable.');
    case 'THROTTLED':
      return new V1Error(429, 'THROTTLED', 'Delivery throttled; retry later.', error.retryAfterSeconds ?? 5);
    case 'UPSTREAM_TIMEOUT':
      return new V1Error(504, 'UPSTREAM_TIMEOUT', 'The data source did not answer in time. Try again.');
    case 'UPSTREAM_UNAVAILABLE':
    case 'STORE_UNAVAILABLE':
      return new V1Error(503, 'UNAVAILABLE', 'The service is unavailable. Try again shortly.', 30);
    case 'PORTAL_BUSY':
      return new V1Error(503, 'UNAVAILABLE', 'The service is busy. Try again shortly.', error.retryAfterSeconds ?? 5);
    case 'ABORTED':
      return new V1Error(499, 'ABORTED', 'The request was cancelled.');
    default:
      return new V1Error(502, 'UPSTREAM_ERROR', 'The data source failed. Try again shortly.');
  }
}

/** The error as an answer: its status, the spec's body, and Retry-After or WWW-Authenticate where they belong. */
export function v1ErrorBody(error: V1Error, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { ...V1_HEADERS, 'X-Request-Id': requestId };
  if (error.retryAfterSeconds !== null) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="picks-api"';
  const body: V1ErrorBody = { error: { code: error.code, message: error.message, requestId } };
  return { status: error.status, headers, body: JSON.stringify(body) };
}
