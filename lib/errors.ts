import type { z } from 'zod';
import type { appErrorJsonSchema } from './vocabulary/error-schema';
import { currentRequestId } from './log/request';
import { toSafeJson } from './safe-json';

/**
 * The one error type of the portal. Upstream faults, invalid filters and refused sessions all travel
 * as an AppError, from the Picks API client through pages, route handlers and exports, so each place
 * can show the same safe message, code and requestId without knowing where the error was born.
 *
 * The vocabulary is closed: every code has its HTTP status, the title people see and a default safe
 * message here, so a new code does not compile until all three are written.
 */

interface ErrorKind {
  status: number;
  title: string;
  message: string;
}

export const ERROR_KINDS = {
  // What the upstream said (spec §7), or what its answers are mapped to.
  INVALID_FILTERS: { status: 400, title: 'Some filters are not valid', message: 'One or more filters are invalid.' },
  UPSTREAM_UNAUTHORIZED: {
    status: 502,
    title: "The portal's API key was refused",
    message: "The portal's API key was refused by the Picks API. Ask a portal administrator to check the key.",
  },
  LICENCE_UNAVAILABLE: { status: 403, title: 'Licence access unavailable', message: 'Licence access is unavailable for this partner.' },
  NOT_FOUND: { status: 404, title: 'Not found', message: 'The Picks API has no such record.' },
  THROTTLED: {
    status: 429,
    title: 'The Picks API is throttling requests',
    message: 'The Picks API is throttling requests. Try again in a few seconds.',
  },
  UPSTREAM_ERROR: { status: 502, title: 'The Picks API failed', message: 'The Picks API failed.' },
  UPSTREAM_UNAVAILABLE: { status: 503, title: 'The Picks API is unreachable', message: 'The Picks API could not be reached.' },
  UPSTREAM_TIMEOUT: { status: 504, title: 'The Picks API did not answer in time', message: 'The Picks API did not answer in time.' },
  UPSTREAM_MALFORMED: {
    status: 502,
    title: 'The Picks API sent something unexpected',
    message: 'The Picks API sent something in an unexpected shape.',
  },
  WALK_UNSETTLED: {
    status: 503,
    title: 'The Picks API kept changing',
    message: 'The Picks API kept changing while the whole set was read; nothing is called complete. Try again later.',
  },
  PAGINATION_BROKEN: {
    status: 502,
    title: 'The Picks API sent a broken list',
    message: 'The Picks API sent a broken list; it was stopped.',
  },
  // The portal's own.
  INVALID_FORMAT: { status: 400, title: 'The file format is not valid', message: 'format must be csv or json.' },
  UNAUTHENTICATED: { status: 401, title: 'Signed out', message: 'Sign in to use the portal.' },
  FORBIDDEN: { status: 403, title: 'Not allowed', message: 'Your role may not do this.' },
  OWNER_NOT_ALLOWED: {
    status: 403,
    title: 'Its owner may not act',
    message: 'This acts for someone who may not do this now (removed, disabled or another role).',
  },
  TOO_MANY_WALKS: {
    status: 429,
    title: 'Too many exports running',
    message: 'Too many exports and coverage reports are running. Try again shortly.',
  },
  TOO_MANY_TRIES: { status: 429, title: 'Too many tries', message: 'That was tried too often in the last minute. Try again shortly.' },
  QUOTA_SPENT: {
    status: 429,
    title: 'The token has used its limits',
    message: 'This token has used its records for today or its requests for this minute.',
  },
  PORTAL_BUSY: {
    status: 503,
    title: 'The portal is busy',
    message: 'The portal is sending the Picks API as many requests as it may. Try again shortly.',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    title: "The portal's database cannot be reached",
    message: "The portal's database cannot be reached. Try again in a minute.",
  },
  INVALID_DELIVERY: { status: 400, title: 'The delivery is not valid', message: 'The delivery is not valid.' },
  DELIVERY_CONFLICT: { status: 409, title: 'That name is taken', message: 'Another delivery already has that name.' },
  DELIVERY_FAILED: { status: 502, title: 'The delivery failed', message: 'The file could not be delivered.' },
  DELIVERY_BUSY: { status: 409, title: 'Already running', message: 'This delivery is already running.' },
  DELIVERY_NO_SPACE: {
    status: 507,
    title: 'Not enough disk space',
    message: 'The portal has too little free disk space to spool a delivery. Ask an operator.',
  },
  INVALID_PREFERENCES: { status: 400, title: 'The preferences are not valid', message: 'The preferences are not valid.' },
  RECONCILE_NOT_READY: { status: 409, title: 'Not ready to reconcile', message: 'This file cannot be reconciled yet.' },
  INVALID_TOKEN: { status: 400, title: 'The token is not valid', message: 'The token settings are not valid.' },
  INVALID_CHECK: { status: 400, title: 'Nothing to check', message: 'Give a file and its signature (JWS).' },
  INVALID_TRY: { status: 400, title: 'The request to try is not valid', message: 'Give the path of an API v1 endpoint and its query.' },
  CHECK_BUSY: { status: 429, title: 'A check is running', message: 'Another file is being checked. Try again when it has ended.' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request is too large', message: 'The request body is too large.' },
  DELIVERY_NOT_READY: { status: 503, title: 'Deliveries cannot run yet', message: 'Deliveries cannot run yet.' },
  ABORTED: { status: 499, title: 'Cancelled', message: 'The request was cancelled.' },
  INTERNAL: { status: 500, title: 'Something went wrong', message: 'The portal hit an unexpected error.' },
} as const satisfies Record<string, ErrorKind>;

export type AppErrorCode = keyof typeof ERROR_KINDS;

/** The title for a code; codes from elsewhere (an older bundle, a client) get a neutral one. */
export function errorTitle(code: string): string {
  return Object.hasOwn(ERROR_KINDS, code) ? ERROR_KINDS[code as AppErrorCode].title : ERROR_KINDS.INTERNAL.title;
}

/** The error body's `error` (lib/vocabulary/error-schema.ts: the same schema the OpenAPI document is made from). */
export type AppErrorJson = z.infer<typeof appErrorJsonSchema>;
/** A server setting that stands in the way (never a field of the request): named, with the document explaining it. */
export type SettingProblem = NonNullable<AppErrorJson['settings']>[number];

export class AppError extends Error {
  readonly status: number;
  readonly code: AppErrorCode;
  readonly requestId: string | null;
  readonly retryAfterSeconds: number | null;
  readonly upstreamCode?: string;
  readonly details?: Record<string, string>;
  readonly settings?: SettingProblem[];

  constructor(init: {
    code: AppErrorCode;
    /** Defaults to the code's own message. */
    message?: string;
    /** Defaults to the code's own status. */
    status?: number;
    requestId?: string | null;
    retryAfterSeconds?: number | null;
    upstreamCode?: string;
    details?: Record<string, string>;
    settings?: SettingProblem[];
    cause?: unknown;
  }) {
    const kind = ERROR_KINDS[init.code];
    super(init.message ?? kind.message, { cause: init.cause });
    this.name = 'AppError';
    this.status = init.status ?? kind.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.upstreamCode = init.upstreamCode;
    this.details = init.details;
    if (init.settings?.length) this.settings = init.settings;
  }

  /** Plain data, safe to hand to a client component or to JSON.stringify. Never holds the cause. */
  toJSON(): AppErrorJson {
    const portalRequestId = currentRequestId();
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      requestId: this.requestId,
      ...(portalRequestId ? { portalRequestId } : {}),
      retryAfterSeconds: this.retryAfterSeconds,
      ...(this.upstreamCode ? { upstreamCode: this.upstreamCode } : {}),
      ...(this.details ? { details: this.details } : {}),
      ...(this.settings ? { settings: this.settings } : {}),
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
/** A refusal naming every wrong field at once: "Invalid <what>: field problem; field problem." with the details. */
export function invalidFields(
  what: string,
  details: Record<string, string>,
  code: AppErrorCode = 'INVALID_FILTERS',
  /** Server settings in the way, said after the fields (never as one). */
  settings: SettingProblem[] = [],
): AppError {
  const said = [
    ...Object.entries(details).map(([field, problem]) => `${field} ${problem.replace(/\.$/, '')}`),
    ...settings.map((s) => `the server's ${s.setting} ${s.problem} (${s.doc})`),
  ].join('; ');
  return new AppError({ code, message: `Invalid ${what}: ${said}.`, details, settings });
}

export function isAppError(value: unknown): value is AppError {
  if (value instanceof AppError) return true;
  const candidate = value as Partial<AppError> | null;
  return (
    value instanceof Error &&
    value.name === 'AppError' &&
    typeof candidate?.status === 'number' &&
    typeof candidate.code === 'string' &&
    typeof candidate.toResponse === 'function'
  );
}

/** Anything thrown becomes an AppError; unknown faults keep no message of their own (it may hold secrets). */
export function toAppError(value: unknown): AppError {
  if (isAppError(value)) return value;
  if (isAbortError(value)) return new AppError({ code: 'ABORTED', cause: value });
  return new AppError({ code: 'INTERNAL', cause: value });
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
