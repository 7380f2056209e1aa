import { toSafeJson } from './safe-json';

/**
 * The one error type of the portal. Upstream faults, invalid filters and refused sessions all travel
 * as an AppError, from the Picks API client through pages, route handlers and exports, so each place
 * can show the same safe message, code and requestId without knowing where the error was born.
 */

export type AppErrorCode =
  // Codes the upstream may send (spec §7) or that we map its statuses to.
  | 'INVALID_FILTERS'
  | 'UPSTREAM_UNAUTHORIZED'
  | 'LICENCE_UNAVAILABLE'
  | 'NOT_FOUND'
  | 'THROTTLED'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_MALFORMED'
  | 'PAGINATION_BROKEN'
  // The portal's own.
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'TOO_MANY_WALKS'
  | 'ABORTED'
  | 'INTERNAL';

export interface AppErrorJson {
  status: number;
  code: string;
  message: string;
  requestId: string | null;
  retryAfterSeconds: number | null;
  /** The filter values that were sent, when the error is about them. */
  details?: Record<string, string>;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly retryAfterSeconds: number | null;
  readonly details?: Record<string, string>;

  constructor(init: {
    status: number;
    code: AppErrorCode | (string & {});
    message: string;
    requestId?: string | null;
    retryAfterSeconds?: number | null;
    details?: Record<string, string>;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.name = 'AppError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.details = init.details;
  }

  /** Plain data, safe to hand to a client component or to JSON.stringify. Never holds the cause. */
  toJSON(): AppErrorJson {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      requestId: this.requestId,
      retryAfterSeconds: this.retryAfterSeconds,
      ...(this.details ? { details: this.details } : {}),
    };
  }

  /** The portal's JSON error body, the same shape as the upstream's (spec §7) plus what a person can act on. */
  toResponse(): Response {
    const headers: Record<string, string> = { 'Cache-Control': 'private, no-store', 'Content-Type': 'application/json; charset=utf-8' };
    if (this.retryAfterSeconds !== null) headers['Retry-After'] = String(this.retryAfterSeconds);
    return new Response(toSafeJson({ error: this.toJSON() }), { status: this.status, headers });
  }
}

/**
 * Next bundles server code once per layer (pages, route handlers), so an AppError can come from another
 * copy of this module: recognise it by shape, not only by class identity.
 */
export function isAppError(value: unknown): value is AppError {
  if (value instanceof AppError) return true;
  const candidate = value as Partial<AppError> | null;
  return value instanceof Error && value.name === 'AppError' && typeof candidate?.status === 'number' && typeof candidate.code === 'string' && typeof candidate.toResponse === 'function';
}

/** Anything thrown becomes an AppError; unknown faults keep no message of their own (it may hold secrets). */
export function toAppError(value: unknown): AppError {
  if (isAppError(value)) return value;
  if (isAbortError(value)) {
    return new AppError({ status: 499, code: 'ABORTED', message: 'The request was cancelled.', cause: value });
  }
  return new AppError({ status: 500, code: 'INTERNAL', message: 'The portal hit an unexpected error.', cause: value });
}

export function isAbortError(value: unknown): boolean {
  return value instanceof Error && (value.name === 'AbortError' || value.name === 'TimeoutError');
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: AppError };

/** Awaits work and keeps its failure as data, so a page can render the error instead of an empty result. */
export async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error: toAppError(error) };
  }
}
