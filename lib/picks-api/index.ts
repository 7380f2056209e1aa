import 'server-only';
import { getConfig } from '../config';
import { createPicksClient, type PicksClient } from './client';
import { createUpstreamGate, type UpstreamGate } from './gate';

export type { Pick, PickList, OpenObject } from './schemas';
export { PICK_FIELDS, NESTED_PICK_FIELDS } from './schemas';
export type { CallOptions, WalkOptions, PicksClient } from './client';
export { pageBytes } from './client';

// One gate per process, shared through globalThis: Next bundles this module once per layer (pages, route
// handlers), and the limiter must see every upstream request of the process. Each layer builds its own
// client, so the errors it throws are of that layer's own AppError class.
const shared = globalThis as typeof globalThis & { __picksGate?: UpstreamGate };
let client: PicksClient | undefined;

/** The portal's Picks API client, built from the validated configuration on first use. */
export function picksApi(): PicksClient {
  if (!client) {
    const config = getConfig();
    shared.__picksGate ??= createUpstreamGate(config.PICKS_API_MAX_CONCURRENCY);
    client = createPicksClient({
      baseUrl: config.PICKS_API_BASE_URL,
      apiKey: config.PICKS_API_KEY,
      timeoutMs: config.PICKS_API_TIMEOUT_MS,
      retry: { maxRetries: config.PICKS_API_MAX_RETRIES },
      gate: shared.__picksGate,
    });
  }
  return client;
}

/** The base against which relative logo URLs of records resolve. */
export function upstreamBaseUrl(): string {
  return getConfig().PICKS_API_BASE_URL;
}
