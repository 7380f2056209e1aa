import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { EVENT_TYPES } from '../vocabulary/tokens';
import { EXAMPLE_EVENTS } from './examples';
import { eventSchema } from './shapes';

/**
 * The event catalogue: every message a consumer webhook receives — the five event types, `gap` and the test event —
 * with when it is sent, its body's schema and an example. The OpenAPI document states them as OpenAPI 3.1 `webhooks`
 * (./openapi.ts), and /developers shows them (components/developers/event-catalogue.tsx): one list for both.
 */

const iso = z.string().meta({ format: 'date-time' });

const WHEN: Record<(typeof EVENT_TYPES)[number], string> = {
  'pick.published': 'A record is seen for the first time.',
  'pick.changed': 'A field of a record changed (odds, a line, the reasoning…); `changes` names each with before and after.',
  'pick.settled': 'A record’s status became settled, or a result appeared.',
  'pick.withdrawn': 'A record is gone from the data source while its event date is watched; `record` is null.',
  'pick.restored': 'A withdrawn record is back.',
};

export interface CatalogueEntry {
  type: string;
  when: string;
  body: z.ZodObject;
  example: { type: string; timestamp: string; data: unknown };
  /** The `webhook-id` it is sent with. */
  id: string;
}

const message = (type: z.ZodType, data: z.ZodType, description: string) =>
  z.strictObject({
    type,
    timestamp: iso.meta({ description: 'When the portal detected it (for an event, its `detectedAt`).' }),
    data: data.meta({ description }),
  });

export const EVENT_CATALOGUE: CatalogueEntry[] = [
  ...EVENT_TYPES.map((type) => ({
    type,
    when: WHEN[type],
    id: `evt_${EXAMPLE_EVENTS[type].seq}`,
    body: message(z.literal(type), eventSchema, 'The event exactly as the stream gives it: save it and check it with the verifier.'),
    example: { type, timestamp: EXAMPLE_EVENTS[type].detectedAt, data: EXAMPLE_EVENTS[type] },
  })),
  {
    type: 'gap',
    when: 'The webhook fell behind what the portal keeps (7 days): read the current records (API v1 or a file), then go on.',
    id: 'gap_1040_1203',
    body: message(
      z.literal('gap'),
      z.strictObject({ asked: z.int(), first: z.int(), message: z.string() }),
      '`asked`: the event after which it should have gone on; `first`: the event it goes on from.',
    ),
    example: {
      type: 'gap',
      timestamp: '2026-12-02T09:00:00.000Z',
      data: {
        asked: 1040,
        first: 1203,
        message: 'Events after 1040 are no longer kept; the next event is 1203. Read the current records (API v1 or a file), then go on.',
      },
    },
  },
  {
    type: 'webhook.test',
    when: 'Someone pressed “Send a test event” on the token’s page: the signature checks, nothing else to do.',
    id: 'test_5f3a9c1e2b7d4a60',
    body: message(
      z.literal('webhook.test'),
      z.strictObject({ endpoint: z.string(), sentBy: z.string(), message: z.string() }),
      'Which webhook, who sent it.',
    ),
    example: {
      type: 'webhook.test',
      timestamp: '2026-11-25T08:40:00.000Z',
      data: {
        endpoint: 'whk_1c9e4f7a',
        sentBy: 'ana@example.com',
        message: 'A test event from the picks partner portal: the signature checks, nothing else to do.',
      },
    },
  },
];

/** The headers every message carries (Standard Webhooks). */
const headers = z.object({
  'webhook-id': z.string().meta({
    description: 'The message’s id: `evt_<seq>` for an event (the same at every attempt and resend: drop what you have seen).',
    example: 'evt_1042',
  }),
  'webhook-timestamp': z
    .string()
    .meta({ description: 'When it was signed, in seconds since 1970 (reject old ones).', example: '1795773900' }),
  'webhook-signature': z.string().meta({
    description: '`v1,` and the base64 HMAC-SHA256, keyed by the webhook’s secret, of `<webhook-id>.<webhook-timestamp>.<body>`.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

/** The catalogue as OpenAPI 3.1 `webhooks`: one entry per message type, its body, headers and the answer expected. */
export function webhookEntries(): ZodOpenApiPathsObject {
  return Object.fromEntries(
    EVENT_CATALOGUE.map((entry) => [
      entry.type,
      {
        post: {
          operationId: `webhook_${entry.type.replace(/\W/g, '_')}`,
          tags: ['webhooks'],
          summary: entry.type,
          description: `${entry.when} POSTed to each webhook of a token that reads \`changes\` and chose this type, signed as Standard Webhooks says (docs/api-v1.md, “Consumer webhooks”).`,
          requestParams: { header: headers },
          requestBody: { required: true, content: { 'application/json': { schema: entry.body, example: entry.example } } },
          responses: {
            '2XX': { description: 'Taken: the next message follows. Answer within 15 s; redirects are not followed.' },
            default: { description: 'Refused: tried again after 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, for a day.' },
          },
        },
      },
    ]),
  );
}
