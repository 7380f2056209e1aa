import { z } from 'zod';
import { OBSERVERS } from '../vocabulary/version';

/** How a delivered record changed since (./reconcile.ts `correctionKinds` says which apply). */
export const CORRECTION_KINDS = [
  'withdrawn',
  'restored',
  'voided',
  'result',
  'resettled',
  'status',
  'odds',
  'line',
  'edited',
  'republished',
] as const;

/**
 * A record's history as GET /api/picks/<id>/history answers it (./diff.ts: `HistoryEntry` and `FieldChange` are
 * these types): the portal API's OpenAPI document is made from the same schemas.
 */

export const fieldChangeSchema = z.strictObject({
  field: z.string(),
  before: z.unknown().meta({ description: 'The value before (null: absent or null, which the spec makes one).' }),
  after: z.unknown(),
});

export const historyEntrySchema = z.strictObject({
  version: z.int().meta({ description: '1, 2, 3…: the order the portal saw the versions in.' }),
  kind: z.enum(['first', 'changed', 'withdrawn', 'restored']),
  digest: z.string().nullable().meta({ description: 'sha256 of the version’s canonical body (null for a withdrawal).' }),
  firstSeen: z.string(),
  firstSeenBy: z.enum(OBSERVERS),
  lastSeen: z.string(),
  lastSeenBy: z.enum(OBSERVERS),
  record: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'The record as this version holds it (null for a withdrawal).' }),
  changes: z.array(fieldChangeSchema).meta({ description: 'Against the version before it that held the record.' }),
});

export const recordHistorySchema = z
  .strictObject({
    id: z.string(),
    recordedSince: z.string().nullable().meta({ description: 'Since when the portal keeps versions (null: nothing kept yet).' }),
    versions: z.array(historyEntrySchema),
  })
  .meta({ id: 'RecordHistory' });

/** A delivered file's records against what the portal knows now (./reconcile.ts `Reconciliation`). */
export const changedRecordSchema = z.strictObject({
  id: z.string(),
  kinds: z.array(z.enum(CORRECTION_KINDS)),
  delivered: z.record(z.string(), z.unknown()),
  now: z.record(z.string(), z.unknown()).nullable().meta({ description: 'null: withdrawn since.' }),
});

export const reconciliationSchema = z.strictObject({
  records: z.int(),
  unchanged: z.int(),
  changed: z.array(changedRecordSchema),
  byKind: z
    .strictObject(
      Object.fromEntries(CORRECTION_KINDS.map((kind) => [kind, z.int().optional()])) as Record<
        (typeof CORRECTION_KINDS)[number],
        z.ZodOptional<z.ZodInt>
      >,
    )
    .meta({ description: 'How many changed records have each kind.' }),
});

export const exportReconciliationSchema = reconciliationSchema
  .extend({
    export: z.strictObject({
      id: z.string(),
      seq: z.int().nullable(),
      file: z.string().nullable(),
      filters: z.record(z.string(), z.string()).nullable(),
      exportedAt: z.string(),
      exportedBy: z.string(),
    }),
  })
  .meta({ id: 'ExportReconciliation' });

export const runReconciliationSchema = reconciliationSchema
  .extend({ run: z.strictObject({ id: z.string(), deliveryId: z.string(), deliveredAt: z.string() }) })
  .meta({ id: 'RunReconciliation' });
