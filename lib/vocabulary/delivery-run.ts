import { z } from 'zod';
import { RECORD_FORMATS } from './formats';

/** What a delivery sends: records, results or the change feed (lib/deliveries/input.ts checks it). */
export const DELIVERY_KINDS = ['picks', 'results', 'changes'] as const;

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

/**
 * A delivery as GET/POST/PATCH /api/deliveries answer it (lib/deliveries/view.ts: `DeliveryView` is this type): no
 * secret, the schedule in words, the next runs, the last run.
 */
export const deliveryViewSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    kind: z.enum(DELIVERY_KINDS),
    format: z.enum(RECORD_FORMATS),
    filters: z.record(z.string(), z.string()),
    schedule: z.string().meta({ description: 'Five cron fields, in UTC.' }),
    scheduleInWords: z.string(),
    nextRuns: z.array(z.string()).meta({ description: 'The next three runs (none while paused).' }),
    destination: z
      .looseObject({
        type: z.enum(['directory', 'sftp', 'webhook', 's3', 'postgres']),
        secret: z.enum(['set', 'not set']).optional(),
      })
      .meta({
        description:
          'The destination as entered, without its password, key or secret (`secret` says whether one is set); a webhook URL’s path and query are shown to its creator only.',
      }),
    hostKey: z.string().nullable().meta({ description: 'The SFTP server’s pinned host key fingerprint.' }),
    encryptedTo: z.string().nullable().meta({ description: 'The fingerprint of the OpenPGP key files are encrypted to; null: in clear.' }),
    corrections: z.boolean(),
    paused: z.boolean(),
    pauseReason: z.string().nullable(),
    failuresInARow: z.int(),
    emptyRunsInARow: z.int().meta({ description: 'The latest finished runs that delivered 0 records, in a row.' }),
    deliversNothing: z.boolean(),
    lastRun: runSchema.nullable(),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Delivery' });

export const deliveriesAnswerSchema = z.strictObject({ data: z.array(deliveryViewSchema) }).meta({ id: 'Deliveries' });

/** POST /api/deliveries/<id>/run (202): the run started, to follow on the run history. */
export const runStartedSchema = z
  .strictObject({ run: z.strictObject({ id: z.string(), deliveryId: z.string(), outcome: z.literal('running') }) })
  .meta({ id: 'DeliveryRunStarted' });

/** One step of "Test connection" (lib/deliveries/s3.ts `ProbeStep`), and its answer: every step said, the first failure ending it. */
export const probeStepSchema = z.strictObject({ step: z.string(), ok: z.boolean(), detail: z.string() });
export const probeAnswerSchema = z.strictObject({ ok: z.boolean(), steps: z.array(probeStepSchema) }).meta({ id: 'DeliveryTest' });

/** GET /api/deliveries/preview (lib/deliveries/preview.ts `Preview`): how many records the filters match now. */
export const previewSchema = z
  .strictObject({
    kind: z.enum(DELIVERY_KINDS),
    filters: z.record(z.string(), z.string()).meta({ description: 'The filters as a run now would send them (relative dates resolved).' }),
    records: z.int(),
    more: z.boolean().meta({ description: 'More than `records` match (the preview stopped counting).' }),
    counted: z.string().meta({ description: 'What was counted, in words.' }),
  })
  .meta({ id: 'DeliveryPreview' });
