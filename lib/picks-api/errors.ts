import 'server-only';
import type { z } from 'zod';
import { AppError, isAbortError } from '../errors';
import { redactText } from './redact';
import { errorBodySchema } from './schemas';

/** How the upstream's answers and failures become the portal's AppError: statuses, bodies, network faults. */

export function parseJsonBody(res: Response, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const type = res.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
    throw new AppError({
      status: 502,
      code: 'UPSTREAM_MALFORMED',
      message:
        text.trim() === ''
          ? `The Picks API sent an empty body (HTTP ${res.status}).`
          : `The Picks API sent something that is not JSON (${type}, HTTP ${res.status}).`,
      requestId: res.headers.get('x-request-id'),
    });
  }
}

export function requestIdOf(body: unknown): string | null {
  if (body && typeof body === 'object' && 'requestId' in body && typeof body.requestId === 'string') return body.requestId;
  return null;
}

/**
 * The upstream's refusal as an AppError. Messages are ours, so nothing the upstream says is shown unchecked;
 * the one it may give (a 400's) is shown with the partner key and any credential taken out.
 */
export function errorFromResponse(res: Response, text: string, partnerKey = ''): AppError {
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
      // The upstream's own code travels beside ours, so a 400 is always INVALID_FILTERS to the portal.
      return new AppError({
        code: 'INVALID_FILTERS',
        message: safeText(body?.message ? redactText(body.message, partnerKey) : null) ?? undefined,
        requestId,
        ...(upstreamCode && upstreamCode !== 'INVALID_FILTERS' ? { upstreamCode } : {}),
      });
    case 401:
      return new AppError({ code: 'UPSTREAM_UNAUTHORIZED', requestId });
    case 403:
      return new AppError({ code: 'LICENCE_UNAVAILABLE', requestId });
    case 404:
      return new AppError({ code: 'NOT_FOUND', requestId });
    case 429: {
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      return throttledError(retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000), requestId);
    }
    default:
      return new AppError({ code: 'UPSTREAM_ERROR', message: `The Picks API failed (HTTP ${res.status}).`, requestId });
  }
}

export function throttledError(seconds: number | null, requestId: string | null): AppError {
  const wait = seconds === null ? null : Math.max(1, seconds);
  return new AppError({
    code: 'THROTTLED',
    message: `The Picks API is throttling requests. Try again in ${wait ?? 'a few'} s.`,
    requestId,
    retryAfterSeconds: wait ?? 5,
  });
}

export function networkError(error: unknown): AppError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  return new AppError({
    code: timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
    cause: isAbortError(error) || error instanceof Error ? error : undefined,
  });
}

export function paginationError(what: string, body: unknown): AppError {
  return new AppError({ code: 'PAGINATION_BROKEN', message: `The Picks API ${what}; the list was stopped.`, requestId: requestIdOf(body) });
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
