import { z } from 'zod';
import { PICK_STATUSES } from '../picks-api/vocabulary';

/**
 * What GET /api/records/count and /api/records/summary answer (./summary.ts: `RecordsSummary` and `Outcomes` are
 * these types): the portal API's OpenAPI document is made from the same schemas.
 */

const KIND = z.enum(['picks', 'results']);
const STATUS_KEYS = [...PICK_STATUSES, 'other'] as const;
/** Records by status: each status the spec names, and `other` for any it does not. */
const byStatus = z.strictObject(
  Object.fromEntries(STATUS_KEYS.map((status) => [status, z.int()])) as Record<(typeof STATUS_KEYS)[number], z.ZodInt>,
);

export const recordsCountSchema = z
  .strictObject({
    kind: KIND,
    records: z.int(),
    countedAt: z.string().meta({ description: 'When the walk that counted them ended (shared for a minute).' }),
  })
  .meta({ id: 'RecordsCount' });

export const outcomesSchema = z.strictObject({
  records: z.int(),
  win: z.int(),
  loss: z.int(),
  push: z.int(),
  void: z.int(),
  hitRate: z.number().nullable().meta({ description: 'wins / (wins + losses), null without either.' }),
});

export const recordsSummarySchema = outcomesSchema.extend({
  complete: z.boolean().meta({ description: 'Whether the set ended before `cap` records.' }),
  cap: z.int(),
  byStatus,
  unsettled: z.int().meta({ description: 'Records with no result yet (or one the spec does not name).' }),
  tiers: z.array(outcomesSchema.extend({ tier: z.string() })),
  leagues: z.array(outcomesSchema.extend({ league: z.string() })),
  byDay: z.record(z.string(), z.int()).meta({ description: 'Records per UTC day of the event (YYYY-MM-DD).' }),
});

export const summaryAnswerSchema = recordsSummarySchema
  .extend({
    kind: KIND,
    summarisedAt: z.string().meta({ description: 'When the walk that summed them ended (shared for a minute).' }),
  })
  .meta({ id: 'RecordsSummary' });

/** What GET /api/records/search answers (lib/records/search.ts): a page of the whole set from the portal's index. */
export const searchAnswerSchema = z
  .strictObject({
    kind: KIND,
    data: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The page’s records, as the records pages show them.' }),
    total: z.int().meta({ description: 'Records matching in all, within the licence in force.' }),
    page: z.int(),
    size: z.int(),
    lastPage: z.int(),
    sort: z.strictObject({ by: z.string(), dir: z.enum(['asc', 'desc']) }),
    words: z.array(z.string()).meta({ description: 'The search’s words as matched: case and accents folded.' }),
    freshness: z.strictObject({
      indexedAt: z.string().nullable().meta({ description: 'When the index last followed the record history.' }),
      lastPollAt: z.string().nullable().meta({ description: 'The change feed’s last complete poll.' }),
      records: z.int().meta({ description: 'Records the index holds (before the licence and filters).' }),
      startedOverAt: z
        .string()
        .nullable()
        .meta({ description: 'When the index last started over for a change of the licence’s content mode (null: never).' }),
      walkedAt: z
        .string()
        .nullable()
        .meta({ description: 'When the whole licensed set was last read for the index, beyond the feed’s window (null: never).' }),
    }),
  })
  .meta({ id: 'RecordsSearch' });
