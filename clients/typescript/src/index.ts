import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './v1';

/**
 * A typed client of the partner portal's API v1, on openapi-fetch with the types generated from the portal's
 * OpenAPI document (./v1.ts). Every path, parameter and answer is typed: a wrong parameter does not compile.
 */

export type { components, paths };
export type Pick = components['schemas']['Pick'];
export type PicksQuery = NonNullable<paths['/api/v1/picks']['get']['parameters']['query']>;
export type PicksClient = Client<paths>;

/** A client for `baseUrl` (the portal's address) with an API token (`pvt_…`). */
export function createPicksClient(options: { baseUrl: string; token: string; fetch?: typeof fetch }): PicksClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The answer's error, thrown with its code, status and requestId. */
export class PicksApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'PicksApiError';
  }
}

/** Every pick the filters match, page after page (spec §4.2), the same filters sent with each cursor. */
export async function* walkPicks(client: PicksClient, query: Omit<PicksQuery, 'cursor'> = {}): AsyncGenerator<Pick> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/api/v1/picks', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } });
    if (error) throw new PicksApiError(response.status, error.error.code, error.error.message, error.error.requestId);
    yield* data.data;
    cursor = data.page.hasMore && data.page.nextCursor ? data.page.nextCursor : undefined;
  } while (cursor);
}
