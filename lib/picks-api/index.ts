import 'server-only';
import { getConfig } from '../config';
import { createPicksClient, type PicksClient } from './client';
import { createUpstreamGate } from './gate';

export type { Pick, PickList, OpenObject } from './schemas';
export { PICK_FIELDS, NESTED_PICK_FIELDS } from './schemas';
export type { CallOptions, WalkOptions, PicksClient } from './client';

// One client and one gate per process (kept on globalThis so dev reloads do not multiply them).
const holder = globalThis as typeof globalThis & { __picksClient?: PicksClient };

/** The portal's Picks API client, built from the validated configuration on first use. */
export function picksApi(): PicksClient {
  if (!holder.__picksClient) {
    const config = getConfig();
    holder.__picksClient = createPicksClient({
      baseUrl: config.PICKS_API_BASE_URL,
      apiKey: config.PICKS_API_KEY,
      timeoutMs: config.PICKS_API_TIMEOUT_MS,
      retry: { maxRetries: config.PICKS_API_MAX_RETRIES },
      gate: createUpstreamGate(config.PICKS_API_MAX_CONCURRENCY),
    });
  }
  return holder.__picksClient;
}

/** The base against which relative logo URLs of records resolve. */
export function upstreamBaseUrl(): string {
  return getConfig().PICKS_API_BASE_URL;
}
