import { z } from 'zod';
import { pickSchema } from '../picks-api/schemas';
import { CONTENT, EVENT_TYPES } from '../vocabulary/tokens';
import { V1_ERROR_CODES } from '../tokens/refusal';

/**
 * What API v1 answers, as schemas: the code builds its answers as these types (./v1.ts, ./v1-errors.ts,
 * lib/api-v1/events-page.ts, lib/api-v1/events-receipt.ts), and the OpenAPI document (lib/api-v1/openapi.ts) is made from them.
 * Objects the portal makes are closed (a field the document does not name is a change the contract suite refuses);
 * a record is open, as the spec says (§9: fields may be added, and are passed on).
 */

export const requestIdSchema = z
  .string()
  .regex(/^req_[A-Za-z0-9_-]+$/)
  .meta({ id: 'RequestId', description: 'This answer’s id (`req_` and an identifier), also in the X-Request-Id header.' });

export const v1ErrorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(V1_ERROR_CODES).meta({ description: 'Stable: what a client branches on.' }),
      message: z.string().meta({ description: 'Safe to show; every wrong parameter named, with what is expected.' }),
      requestId: requestIdSchema,
    }),
  })
  .meta({ id: 'Error', description: 'Every error (spec §7).' });
export type V1ErrorBody = z.infer<typeof v1ErrorSchema>;

export const recordSchema = pickSchema
  .extend({
    id: z
      .string()
      .min(1)
      .meta({ description: 'Always present in the portal’s answers: a record the upstream sent without one is not served.' }),
  })
  .meta({
    id: 'Pick',
    description:
      'A licensed pick (spec §2.2). Every field may be null or absent, both meaning “not included”; fields may be added (§9). A token without a content reads records without its fields: picks — odds, oddsFormat, bookmaker, probability, confidenceTier, reasoning; results — result, settledAt.',
  });

export const pickPageSchema = z
  .strictObject({
    data: z.array(recordSchema),
    page: z.strictObject({
      nextCursor: z
        .string()
        .nullable()
        .meta({ description: 'Send as `cursor`, with the same filters, for the next page; null at the end.' }),
      hasMore: z.boolean(),
    }),
    requestId: requestIdSchema,
  })
  .meta({ id: 'PickPage', description: 'One page of a list (spec §4.2).' });

export const pickAnswerSchema = z.strictObject({ data: recordSchema, requestId: requestIdSchema }).meta({ id: 'PickAnswer' });

const iso = z.string().meta({ format: 'date-time' });

export const v1MeSchema = z
  .strictObject({
    partner: z.strictObject({ name: z.string().nullable() }),
    licence: z.strictObject({
      id: z.string().nullable(),
      status: z.string().nullable(),
      sports: z.array(z.string()).nullable().meta({ description: 'null: the licence does not say.' }),
      leagues: z.array(z.string()).nullable(),
      dateWindow: z.strictObject({ from: z.string().nullable(), to: z.string().nullable() }).nullable(),
      contentMode: z.string().nullable(),
      channels: z.array(z.string()).nullable(),
      content: z.array(z.enum(CONTENT)),
      expiresAt: iso,
    }),
    token: z.strictObject({
      id: z.string(),
      name: z.string(),
      expiresAt: iso,
      ratePerMinute: z.int(),
      dailyRecords: z.int(),
    }),
    requestId: requestIdSchema,
  })
  .meta({ id: 'Me', description: 'The caller: this token’s view of the licence (its scope), and the token.' });
export type V1Me = z.infer<typeof v1MeSchema>;

export const v1HealthSchema = z
  .strictObject({ status: z.literal('ok'), service: z.string(), version: z.literal('v1'), time: iso, requestId: requestIdSchema })
  .meta({ id: 'Health' });
export type V1Health = z.infer<typeof v1HealthSchema>;

export const eventSchema = z
  .strictObject({
    seq: z.int(),
    type: z.enum(EVENT_TYPES),
    pickId: z.string(),
    detectedAt: iso,
    record: recordSchema.nullable(),
    changes: z.record(z.string(), z.strictObject({ before: z.unknown(), after: z.unknown() })).nullable(),
    prev: z.string().nullable(),
    hash: z.string(),
  })
  .meta({ id: 'Event', description: 'One entry of the change feed (docs/api-v1.md, “Events”).' });

export const eventsPageSchema = z
  .strictObject({
    data: z.array(eventSchema),
    gap: z.strictObject({ after: z.int(), firstId: z.int(), message: z.string() }).nullable(),
    page: z.strictObject({ after: z.int(), nextAfter: z.int(), lastId: z.int(), hasMore: z.boolean() }),
    requestId: requestIdSchema,
  })
  .meta({ id: 'EventPage' });
export type V1EventPage = z.infer<typeof eventsPageSchema>;

export const receiptSchema = z
  .strictObject({
    receipt: z.strictObject({
      tokenId: z.string(),
      from: z.int(),
      to: z.int(),
      count: z.int(),
      firstId: z.int().nullable(),
      lastId: z.int().nullable(),
      prev: z.string().nullable(),
      lastHash: z.string().nullable(),
      issuedAt: iso,
    }),
    jws: z.string(),
    requestId: requestIdSchema,
  })
  .meta({ id: 'Receipt' });
export type V1Receipt = z.infer<typeof receiptSchema>;

export const checkpointsSchema = z
  .strictObject({
    data: z.array(
      z.strictObject({ from: z.int(), to: z.int(), count: z.int(), lastHash: z.string().nullable(), signedAt: iso, jws: z.string() }),
    ),
    requestId: requestIdSchema,
  })
  .meta({ id: 'Checkpoints' });
export type V1Checkpoints = z.infer<typeof checkpointsSchema>;

/** GET /api/v1/search (./v1-search.ts): a page of the records found in the portal's index, and how many in all. */
export const searchPageSchema = z
  .strictObject({
    data: z.array(recordSchema),
    page: z.strictObject({
      number: z.int().min(1),
      size: z.int().min(1).max(200),
      total: z.int().min(0).meta({ description: 'Records matching in all, within the token’s scope and the licence.' }),
      lastPage: z.int().min(1),
    }),
    index: z.strictObject({
      lastPollAt: z.string().nullable().meta({ description: 'The change feed’s last complete poll: what the index rests on.' }),
      followedAt: z.string().nullable().meta({ description: 'When the index last followed the portal’s record history.' }),
    }),
    requestId: requestIdSchema,
  })
  .meta({ id: 'SearchPage' });

/** The orders the search takes (lib/store/record-index.ts SORTABLE, and the records' relevance). */
export const V1_SEARCH_SORTS = [
  'relevance',
  'eventDate',
  'published',
  'settled',
  'odds',
  'probability',
  'status',
  'result',
  'sport',
  'league',
] as const;
