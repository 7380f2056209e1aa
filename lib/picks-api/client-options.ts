import type { UpstreamGate, GatePriority } from './gate';
import type { WalkReport } from './settle';

/** What a Picks API client is made with and each call may ask (./client.ts). */

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
  /** The longest a request waits for its turn at the gate, by lane (default: GATE_SLOT_BOUND_MS; tests shorten it). */
  gateBoundsMs?: Partial<Record<GatePriority, number | null>>;
  /** The signal of calls made without one (pages: React's render signal, aborted when the browser goes away). */
  defaultSignal?: () => AbortSignal | null | undefined;
  /** How long a call made without `maxWaitMs` may wait out an upstream pause (a page: what is left of its wait); none: the retry policy's cap. */
  defaultMaxWaitMs?: () => number | undefined;
  /** Told of every request sent upstream, retries included: its path (without the query), outcome and duration (metrics). */
  observe?: (request: {
    path: string;
    outcome: UpstreamOutcome;
    ms: number;
    requestId: string | null;
    /** 0 for the first try, 1 for the first retry… */
    attempt: number;
    /** How long it waited for the gate before it was sent. */
    queuedMs: number;
    /** The gate lane it waited in. */
    lane: GatePriority;
  }) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Called for every HTTP request sent upstream, retries included (coverage reports its cost). */
  onRequest?: () => void;
  /** Called with the outcome of every HTTP request sent upstream, retries included (feed health counts them). */
  onAnswer?: (outcome: UpstreamOutcome) => void;
  /** Queue order at the shared gate: 'page' (default) before 'bulk' (walks of exports and coverage). */
  priority?: GatePriority;
  /** The longest this call waits out the upstream's pause before failing as throttled (default: the retry policy's cap). */
  maxWaitMs?: number;
}

export interface WalkOptions extends CallOptions {
  /** Page size asked of the upstream; the spec's maximum by default, so a walk needs the fewest requests. */
  pageSize?: number;
  /**
   * The walk's consumer writes records back out as bytes and never reads their text (exports): pages that
   * allow it arrive as byte strings, marked (byte-strings.ts: encode text made from them as Latin-1).
   */
  byteStrings?: boolean;
  /** Filled in as the walk goes: duplicates dropped, passes, whether it settled (settle.ts). */
  report?: WalkReport;
  /** 'report': a walk that cannot settle ends quietly and says so in `report`; by default it fails (WALK_UNSETTLED). */
  unsettled?: 'throw' | 'report';
}

/** How one upstream request ended: its answer's class, or no answer at all. */
import type { UpstreamOutcome } from '../vocabulary/upstream';

export type { UpstreamOutcome };

export const outcomeOf = (status: number): UpstreamOutcome =>
  status < 400
    ? 'ok'
    : status === 401 || status === 403 || status === 429
      ? (String(status) as UpstreamOutcome)
      : status >= 500
        ? '5xx'
        : '4xx';

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 4_000, retryAfterCapMs: 30_000 };
