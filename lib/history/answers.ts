import { z } from 'zod';
import { OBSERVERS } from '../vocabulary/version';

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
