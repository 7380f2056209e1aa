import 'server-only';
import { cache, cacheSignal } from 'react';
import { getConfig } from '../config';
import { AppError } from '../errors';
import type { LogoPolicy } from './pick-view';
import { requestSignal } from '../request-signal';
import { createPicksClient, type PicksClient } from './client';
import { getStore } from '../store';
import { publishPause, readPause } from '../store/pause';
import { createUpstreamGate, sharedGate } from './gate';
import { sharePause } from './shared-pause';
import { metrics, readGateFrom, upstreamEndpoint } from '../metrics';
import { noteUpstreamRequest } from '../log/request';
import { waitHitBound } from '../waits';

export type { Pick, PickList, OpenObject } from './schemas';
export { PICK_FIELDS, NESTED_PICK_FIELDS } from './schemas';
export type { CallOptions, WalkOptions, PicksClient } from './client';
export { pageBytes, sniffNextCursor } from './walk';
export { describeWalk, newWalkReport, walkSummary, type WalkReport } from './settle';
export { encodingOf } from './byte-strings';

// One gate per process (lib/process-state.ts): the limiter must see every upstream request of the process.
// Each layer builds its own client, so the errors it throws are of that layer's own AppError class.
let client: PicksClient | undefined;

/**
 * A page render's one deadline for the Picks API (React's cache: one per render, from its first call): a
 * person waits at most PAGE_UPSTREAM_WAIT_MS for the upstream however many calls, retries and gate waits the
 * page makes, then sees the error in place of the data, with a retry.
 */
const renderDeadline = cache((): { signal: AbortSignal; endsAt: number } => {
  const ms = getConfig().PAGE_UPSTREAM_WAIT_MS;
  const controller = new AbortController();
  const reason = new AppError({
    code: 'UPSTREAM_TIMEOUT',
    message: `The Picks API did not answer within ${Math.round(ms / 1000)} s, so the page stopped waiting. Try again in a moment.`,
  });
  const render = cacheSignal();
  setTimeout(() => {
    // Counted only when the render still needed the upstream (React aborts its signal when the render ends).
    if (render && !render.aborted) waitHitBound('page');
    controller.abort(reason);
  }, ms).unref();
  return { signal: controller.signal, endsAt: Date.now() + ms };
});

/** What is left of a page render's wait (none outside a render). */
function pageWaitLeft(): number | undefined {
  return cacheSignal() ? Math.max(0, renderDeadline().endsAt - Date.now()) : undefined;
}

/**
 * Calls made without a signal (pages) stop when the browser that asked goes away (the request's signal),
 * when React no longer needs them (the render's cache signal), or at the render's deadline. None of them
 * exists outside a request; route handlers (exports, API v1) pass signals of their own.
 */
function pageSignal(): AbortSignal | undefined {
  const render = cacheSignal() ?? undefined;
  const signals = [requestSignal(), render, render && renderDeadline().signal].filter((signal): signal is AbortSignal => !!signal);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/** The portal's Picks API client, built from the validated configuration on first use. */
export function picksApi(): PicksClient {
  if (!client) {
    const config = getConfig();
    const gate = sharedGate.once(() =>
      sharePause(createUpstreamGate(config.PICKS_API_MAX_CONCURRENCY), {
        publish: async (resumeAt) => publishPause((await getStore()).db, resumeAt),
        read: async () => readPause((await getStore()).db),
      }),
    );
    readGateFrom(() => gate.stats);
    client = createPicksClient({
      baseUrl: config.PICKS_API_BASE_URL,
      apiKey: config.PICKS_API_KEY,
      timeoutMs: config.PICKS_API_TIMEOUT_MS,
      retry: { maxRetries: config.PICKS_API_MAX_RETRIES },
      gate,
      defaultSignal: pageSignal,
      defaultMaxWaitMs: pageWaitLeft,
      observe: ({ path, outcome, ms, requestId, attempt, queuedMs, lane }) => {
        noteUpstreamRequest(requestId);
        const m = metrics();
        const endpoint = upstreamEndpoint(path);
        m.upstream.inc({ endpoint, outcome });
        m.upstreamSeconds.observe({ endpoint }, ms / 1000);
        m.gateWait.observe({ lane }, queuedMs / 1000);
        if (attempt > 0) m.upstreamRetries.inc({ endpoint });
      },
    });
  }
  return client;
}

/** Where records' logos may come from (./pick-view.ts): the upstream's origin and PORTAL_IMAGE_ORIGINS. */
export function logoPolicy(): LogoPolicy {
  const config = getConfig();
  policy ??= { upstreamBase: config.PICKS_API_BASE_URL, origins: config.PORTAL_IMAGE_ORIGINS };
  return policy; // one object, so the URLs it vetted are remembered across pages
}
let policy: LogoPolicy | undefined;
