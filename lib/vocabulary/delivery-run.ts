import { z } from 'zod';

/**
 * A delivery's run as the store reads it (lib/store/delivery-runs.ts: `Run` is this type) and as
 * GET /api/deliveries/<id>/runs answers it: the portal API's OpenAPI document is made from the same schema.
 */

export const tableCountsSchema = z.strictObject({
  mode: z.enum(['full', 'changes']),
  inserted: z.int(),
  updated: z.int(),
  marked: z.int(),
});

export const runSchema = z.strictObject({
  id: z.string(),
  deliveryId: z.string(),
  dueMs: z.number().nullable(),
  trigger: z.enum(['schedule', 'manual', 'retry', 'correction']),
  attempt: z.int(),
  instance: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  outcome: z.enum(['running', 'complete', 'failed']),
  records: z.int().nullable(),
  bytes: z.int().nullable(),
  sha256: z.string().nullable(),
  file: z.string().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** Records of the run outside the licence the portal read from /me (its manifest's attestation); null: none or not known. */
  outsideLicence: z.int().nullable(),
  /** A table delivery's run: whether it loaded the whole set or the changes, and the rows it inserted, updated and marked. */
  table: tableCountsSchema.nullable(),
});

export const runsAnswerSchema = z
  .strictObject({ data: z.array(runSchema.extend({ empty: z.boolean().meta({ description: 'Complete with 0 records.' }) })) })
  .meta({ id: 'DeliveryRuns' });
