import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { webhookEntries } from './catalogue';
import {
  EXAMPLE_CHECKPOINTS,
  EXAMPLE_EVENT_PAGE,
  EXAMPLE_HEALTH,
  EXAMPLE_ME,
  EXAMPLE_PAGE,
  EXAMPLE_PICK,
  EXAMPLE_RECEIPT,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_RESULTS,
  EXAMPLE_SEARCH,
  EXAMPLE_STREAM,
} from './examples';
import { V1_QUERIES, whole } from './queries';
import type { V1ErrorCode } from '../tokens/refusal';

import {
  checkpointsSchema,
  eventsPageSchema,
  pickAnswerSchema,
  pickPageSchema,
  receiptSchema,
  searchPageSchema,
  v1ErrorSchema,
  v1HealthSchema,
  v1MeSchema,
} from './shapes';

/**
 * The OpenAPI 3.1 document of API v1 as the portal serves it to tokens (GET /api/v1/openapi.json), made by
 * zod-openapi from the schemas the code checks parameters with (lib/api-v1/params.ts) and builds its answers
 * as (lib/api-v1/shapes.ts): nothing here restates a shape, only what each operation takes and may answer.
 * clients/typescript/ is generated from it (npm run openapi), and the contract suites check every answer with it.
 */

/** What both documents (this one and ./portal.ts) say of themselves alike. */
export const LICENSE = { name: 'The partner’s data licence', identifier: 'LicenseRef-partner-data-licence' };
/**
 * Where the documents say the portal is: its public URL (NEXTAUTH_URL's origin) in the documents a portal serves, so a
 * generator or a reader of the document knows the absolute address; the committed copy (scripts/openapi.ts), made
 * without a portal, names the host as a variable to fill in.
 */
export const serversAt = (origin?: string) =>
  origin
    ? [{ url: origin, description: 'This portal' }]
    : [
        {
          url: 'https://{portal}',
          description: 'The partner portal',
          variables: { portal: { default: 'portal.example', description: 'The portal’s host, as in its public URL (NEXTAUTH_URL).' } },
        },
      ];

const json = (schema: z.ZodType, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });
const privateHeaders = {
  'Cache-Control': z.literal('private, no-store').meta({ description: 'Every answer: private, never cached.' }),
  'X-Request-Id': z.string().meta({ description: 'The answer’s requestId.' }),
};
const headers = z.object(privateHeaders);

/** What each refusal's example says (the portal's own words for it). */
const SAID: Partial<Record<V1ErrorCode, string>> = {
  UNAUTHORIZED: 'Missing or invalid credentials.',
  OUT_OF_SCOPE: 'The sport "Football" is in the licence but outside this token\'s scope, which covers Tennis.',
  METHOD_NOT_ALLOWED: 'Only GET is supported.',
  RATE_LIMITED: 'This token may make 600 requests a minute. Try again in a moment.',
  UPSTREAM_ERROR: 'The data source failed. Try again shortly.',
  UNAVAILABLE: 'The service is unavailable. Try again shortly.',
  UPSTREAM_TIMEOUT: 'The data source did not answer in time. Try again.',
  INVALID_FILTERS:
    'One or more filters are invalid: from must be a UTC timestamp such as 2026-11-01T00:00:00Z (for the whole day: 2026-11-01T00:00:00Z).',
  NOT_FOUND: 'No pick has that id.',
};

/** A refusal; its description opens with the code its example shows. */
const refusal = (description: string, extra: Record<string, z.ZodType> = {}) => {
  const code = /^[A-Z_]+/.exec(description)![0] as V1ErrorCode;
  return {
    description,
    headers: z.object({ ...privateHeaders, ...extra }),
    content: json(v1ErrorSchema, { error: { code, message: SAID[code], requestId: EXAMPLE_REQUEST_ID } }),
  };
};
const retryAfter = { 'Retry-After': z.string().meta({ description: 'Seconds to wait before asking again.' }) };

/** What every operation may answer besides its 200. */
const common: ZodOpenApiResponsesObject = {
  '401': refusal('UNAUTHORIZED: no token, an unknown, revoked or expired one, or a suspended one (its owner may no longer hold tokens).', {
    'WWW-Authenticate': z.string().meta({ description: 'Bearer realm="picks-api"' }),
  }),
  '403': refusal('OUT_OF_SCOPE: content, a sport, league or dates outside the token’s scope; LICENCE_UNAVAILABLE.'),
  '405': refusal('METHOD_NOT_ALLOWED: anything but GET (and HEAD).'),
  '429': refusal(
    'RATE_LIMITED (the token’s requests a minute), QUOTA_EXCEEDED (its records a day, until midnight UTC) or THROTTLED (the upstream’s).',
    retryAfter,
  ),
  '502': refusal('UPSTREAM_ERROR: the data source failed.'),
  '503': refusal('UNAVAILABLE: the data source or the portal is unavailable or busy.', retryAfter),
  '504': refusal('UPSTREAM_TIMEOUT: the data source did not answer in time.'),
};

const ok = (description: string, schema: z.ZodType, example: unknown): ZodOpenApiResponsesObject => ({
  '200': { description, headers, content: json(schema, example) },
  ...common,
});

const STREAM =
  'Server-sent events. Each event is `id: <seq>`, `event: <type>` (pick.published, pick.changed, pick.settled, pick.withdrawn, pick.restored) and `data:` one Event as JSON (the schema Event; the same as a webhook’s `data`: see `webhooks`). Also: `retry: 3000` first; a comment `: alive <time>; last poll <time>` every 15 s; `event: gap` (`{ after, firstId, message }`) when resuming from before what is kept; `event: quota` (`{ code, message, retryAfterSeconds }`) when the token’s records for the day are spent, then the end; `event: closed` (`{ code, message }`) when the token is revoked, suspended or its scope changed. Resume with `Last-Event-ID`.';

const PAGING =
  'Paging (spec §4.2): ask for the first page without `cursor`; while `page.hasMore` is true, ask again with `cursor` set to `page.nextCursor` and the same filters; a null `page.nextCursor` ends the set. Unknown, repeated, empty or malformed parameters are 400 INVALID_FILTERS, every one named.';

const list = (endpoint: 'picks' | 'results', summary: string): ZodOpenApiOperationObject => ({
  operationId: endpoint === 'picks' ? 'listPicks' : 'listResults',
  summary,
  description: PAGING,
  requestParams: { query: V1_QUERIES[endpoint] },
  responses: {
    ...ok('A page of records.', pickPageSchema, endpoint === 'picks' ? EXAMPLE_PAGE : EXAMPLE_RESULTS),
    '400': refusal('INVALID_FILTERS: every wrong parameter named.'),
  },
});

/** API v1's document; `origin`: the serving portal's public origin (absent: the committed copy's host variable). */
export function v1Document(origin?: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Picks partner portal — API v1',
      version: '1',
      license: LICENSE,
      description:
        'The Licensed Sports Picks API v1, served by the partner portal to API tokens inside each token’s scope, rate and daily quota. A client written for the upstream works by changing its base address and key. Every answer is private and never cached; errors are `{ error: { code, message, requestId } }`.',
    },
    servers: serversAt(origin),
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`pvt_…`) made on /tokens. A session cookie is never accepted here.',
        },
      },
    },
    tags: [
      { name: 'records', description: 'Picks and results, inside the token’s scope.' },
      { name: 'account', description: 'The caller and the service.' },
      { name: 'events', description: 'Changes pushed: the change feed as events (a token whose scope holds `changes`).' },
      {
        name: 'webhooks',
        description: 'What the portal POSTs to a token’s consumer webhooks: each message type, signed as Standard Webhooks says.',
      },
    ],
    webhooks: webhookEntries(),
    paths: {
      '/api/v1/picks': { get: { tags: ['records'], ...list('picks', 'Licensed picks') } },
      '/api/v1/results': { get: { tags: ['records'], ...list('results', 'Licensed settled results') } },
      '/api/v1/picks/{id}': {
        get: {
          tags: ['records'],
          operationId: 'getPick',
          summary: 'One pick by its id',
          requestParams: { path: z.object({ id: z.string().min(1).meta({ description: 'The record’s opaque id (percent-encoded).' }) }) },
          responses: {
            ...ok('The record.', pickAnswerSchema, { data: EXAMPLE_PICK, requestId: EXAMPLE_REQUEST_ID }),
            '404': refusal('NOT_FOUND: no pick has that id inside the token’s scope.'),
          },
        },
      },
      '/api/v1/me': {
        get: {
          tags: ['account'],
          operationId: 'getMe',
          summary: 'The caller: its view of the licence, and the token',
          responses: ok('The token’s view.', v1MeSchema, EXAMPLE_ME),
        },
      },
      '/api/v1/health': {
        get: {
          tags: ['account'],
          operationId: 'getHealth',
          summary: 'Whether the portal and its data source answer',
          responses: ok('Both answer.', v1HealthSchema, EXAMPLE_HEALTH),
        },
      },
      '/api/v1/events': {
        get: {
          tags: ['events'],
          operationId: 'listEvents',
          summary: 'The change feed inside the token’s scope (a token with `changes`)',
          description:
            'JSON pages for any Accept but text/event-stream (which streams server-sent events instead: docs/api-v1.md). Ask again with `after` = `page.nextAfter`.',
          requestParams: {
            query: V1_QUERIES.events,
          },
          responses: {
            ...ok('A page of events.', eventsPageSchema, EXAMPLE_EVENT_PAGE),
            '200': {
              description: 'A page of events (JSON), or with `Accept: text/event-stream` the stream itself.',
              headers,
              content: {
                ...json(eventsPageSchema, EXAMPLE_EVENT_PAGE),
                'text/event-stream': {
                  schema: z.string().meta({ description: STREAM }),
                  example: EXAMPLE_STREAM,
                },
              },
            },
            '400': refusal('INVALID_FILTERS.'),
          },
        },
      },
      '/api/v1/events/receipt': {
        get: {
          tags: ['events'],
          operationId: 'getEventsReceipt',
          summary: 'A signed statement of the events from one id to another',
          requestParams: { query: z.object({ from: whole(1), to: whole(1) }) },
          responses: { ...ok('The receipt and its JWS.', receiptSchema, EXAMPLE_RECEIPT), '400': refusal('INVALID_FILTERS.') },
        },
      },
      '/api/v1/search': {
        get: {
          tags: ['records'],
          operationId: 'searchRecords',
          summary: 'Search the licensed set, order it whole, any page (the portal’s own, from its index)',
          description:
            'Not an upstream operation: answered from the portal’s index of the licensed set (docs/search.md), within the token’s scope. Each record answered is one of its daily records.',
          requestParams: {
            query: V1_QUERIES.search,
          },
          responses: {
            ...ok('A page of the records found, and how many in all.', searchPageSchema, EXAMPLE_SEARCH),
            '400': refusal('INVALID_FILTERS.'),
          },
        },
      },
      '/api/v1/events/checkpoints': {
        get: {
          tags: ['events'],
          operationId: 'listEventCheckpoints',
          summary: 'The token’s signed checkpoints',
          requestParams: {
            query: z.object({
              after: whole(0).optional().meta({ description: 'The last checkpoint’s event id read; default 0.' }),
              limit: whole(1, 1_000).optional().meta({ description: '1–1,000; default 100.' }),
            }),
          },
          responses: { ...ok('Checkpoints, oldest first.', checkpointsSchema, EXAMPLE_CHECKPOINTS), '400': refusal('INVALID_FILTERS.') },
        },
      },
    },
  });
}
