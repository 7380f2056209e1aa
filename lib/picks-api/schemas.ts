import { z } from 'zod';

/**
 * Runtime shapes of the upstream's bodies (spec §2, §7), tolerant the way §2.2 and §9 demand:
 * every Pick field may be null or absent (both read as "not included"), unknown fields are kept,
 * and values the spec does not enumerate (status, result, marketType, ...) are carried as strings.
 * Wrong *types* are still rejected: a number where text belongs means the body is not what we think.
 */

const str = z.string().nullish();
const num = z.number().nullish();
const bool = z.boolean().nullish();

export const pickSchema = z.looseObject({
  id: str,
  sport: str,
  league: str,
  roundOrWeek: str,
  eventMetadata: z.looseObject({ competition: str, stage: str }).nullish(),
  eventDescription: str,
  eventDate: str,
  homeTeam: str,
  awayTeam: str,
  homeTeamLogoUrl: str,
  awayTeamLogoUrl: str,
  competitionLogoUrl: str,
  marketType: str,
  selection: str,
  // The value type of line is not documented (§2.2): numbers and labels both occur in practice.
  line: z.union([z.number(), z.string()]).nullish(),
  odds: num,
  oddsFormat: str,
  bookmaker: str,
  probability: num,
  confidenceTier: str,
  reasoning: str,
  status: str,
  result: str,
  settledAt: str,
  publishedAt: str,
  attribution: str,
  widgetEventIdentity: z.looseObject({ sourceEventId: str, sportKey: str, competitionKey: str }).nullish(),
  homeIdentityKey: str,
  awayIdentityKey: str,
  subjectIdentityKey: str,
  homeLogoUrl: str,
  awayLogoUrl: str,
  homeNationality: str,
  awayNationality: str,
  isPlayerPick: bool,
});

export type Pick = z.infer<typeof pickSchema>;

/** Documented Pick fields in spec order (§2.2): the column order of tables and CSV exports. */
export const PICK_FIELDS = [
  'id',
  'sport',
  'league',
  'roundOrWeek',
  'eventMetadata',
  'eventDescription',
  'eventDate',
  'homeTeam',
  'awayTeam',
  'homeTeamLogoUrl',
  'awayTeamLogoUrl',
  'competitionLogoUrl',
  'marketType',
  'selection',
  'line',
  'odds',
  'oddsFormat',
  'bookmaker',
  'probability',
  'confidenceTier',
  'reasoning',
  'status',
  'result',
  'settledAt',
  'publishedAt',
  'attribution',
  'widgetEventIdentity',
  'homeIdentityKey',
  'awayIdentityKey',
  'subjectIdentityKey',
  'homeLogoUrl',
  'awayLogoUrl',
  'homeNationality',
  'awayNationality',
  'isPlayerPick',
] as const satisfies readonly (keyof Pick)[];

export const NESTED_PICK_FIELDS = {
  eventMetadata: ['competition', 'stage'],
  widgetEventIdentity: ['sourceEventId', 'sportKey', 'competitionKey'],
} as const;

/** The typed fields of a record, as the files and tables that type them read them (Parquet, a PostgreSQL table). */
export const TIME_FIELDS: ReadonlySet<string> = new Set(['eventDate', 'settledAt', 'publishedAt']);
export const DOUBLE_FIELDS: ReadonlySet<string> = new Set(['odds', 'probability']);
export const BOOLEAN_FIELDS: ReadonlySet<string> = new Set(['isPlayerPick']);
/** Text that reads as a number (a `line` or an odds value sent as text). */
export const NUMERIC_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Every documented field as a path, nested ones dotted (`eventMetadata.competition`): CSV columns, field coverage. */
export const PICK_FIELD_PATHS: string[] = PICK_FIELDS.flatMap((field) =>
  field in NESTED_PICK_FIELDS ? NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS].map((sub) => `${field}.${sub}`) : [field],
);

/** A record's value at a field path (absent parents read as absent). */
export function valueAtPath(record: Record<string, unknown>, path: string): unknown {
  const dot = path.indexOf('.');
  if (dot < 0) return record[path];
  const parent = record[path.slice(0, dot)];
  return parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[path.slice(dot + 1)] : undefined;
}

export const pageSchema = z.looseObject({
  nextCursor: z.string().nullish(),
  hasMore: z.boolean(),
});

export const pickListSchema = z.looseObject({
  data: z.array(pickSchema),
  page: pageSchema,
  requestId: str,
});

export type PickList = z.infer<typeof pickListSchema>;

/** /results: body shape not documented (§4). Accept the list envelope, or a bare array as one final page. */
export const resultListSchema = z.union([
  pickListSchema,
  z.array(pickSchema).transform((data): PickList => ({ data, page: { nextCursor: null, hasMore: false }, requestId: null })),
]);

/** /me and /health: shapes not documented; validated as JSON objects and kept whole. */
export const openObjectSchema = z.record(z.string(), z.unknown());
export type OpenObject = z.infer<typeof openObjectSchema>;

export const errorBodySchema = z.looseObject({
  error: z.looseObject({ code: str, message: str, requestId: str }),
});
