/**
 * How a token is refused, in API v1's words (spec §7): the codes every answer of API v1 may carry, and the
 * error the token's checks (access, limits, scope) throw. lib/api-v1/errors.ts turns it into an answer.
 */

export const V1_ERROR_CODES = [
  'INVALID_FILTERS',
  'UNAUTHORIZED',
  'OUT_OF_SCOPE',
  'LICENCE_UNAVAILABLE',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'SCOPE_CHANGED',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'THROTTLED',
  'ABORTED',
  'INTERNAL',
  'UPSTREAM_ERROR',
  'UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;
export type V1ErrorCode = (typeof V1_ERROR_CODES)[number];

export class V1Error extends Error {
  constructor(
    readonly status: number,
    readonly code: V1ErrorCode,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'V1Error';
  }
}
