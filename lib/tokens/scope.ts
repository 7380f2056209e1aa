import { z } from 'zod';
import { invalidFields } from '../errors';
import { shown } from '../strict-query';
import type { LicenceSummary } from '../vocabulary/licence';

/**
 * What a token may read: content (picks, results or both), sports and leagues chosen from the licence, and
 * an optional date window on the event date. An empty list of sports means every sport the licence grants
 * (now and later); an empty list of leagues, every league of those sports. Leagues, when listed, are the only
 * leagues served. Checked against the licence when a token is created or changed, and enforced on every
 * request (lib/api-v1/plan.ts): the upstream is asked only for what is inside, and records outside are dropped.
 */

import { CONTENT, type Content, type TokenScope } from '../vocabulary/tokens';
import type { ceilingsSchema } from '../vocabulary/token-view';

export { CONTENT, type Content, type TokenScope } from '../vocabulary/tokens';

export const MAX_RATE_PER_MINUTE = 6_000;
export const MAX_DAILY_RECORDS = 50_000_000;
const MAX_LIFETIME_MS = 2 * 366 * 86_400_000;
const CONTENT_WORDS = 'must list "picks", "results" or both, and "changes" for the event stream';
const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|\+00:00)$/;

const utcTime = (what: string) =>
  z
    .string({ error: `must be ${what} as an ISO 8601 UTC time, e.g. 2027-01-31T00:00:00Z` })
    .refine(
      (value) => UTC_TIME.test(value) && !Number.isNaN(Date.parse(value)),
      `must be ${what} as an ISO 8601 UTC time, e.g. 2027-01-31T00:00:00Z`,
    );
const names = (what: string) =>
  z
    .array(
      z
        .string({ error: `must be a list of ${what}` })
        .trim()
        .min(1, `must not hold an empty ${what.replace(/s$/, '')}`),
      {
        error: `must be a list of ${what}`,
      },
    )
    .max(200, `must list at most 200 ${what}`);

const fields = {
  // One line of printable text: a name reaches chat messages and email bodies (lib/alerts).
  name: z
    .string({ error: 'must be a name' })
    .trim()
    .min(1, 'is required')
    .max(80, 'must be at most 80 characters')
    .refine(
      (value) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(value),
      'must be one line of printable text (no line breaks or control characters)',
    ),
  content: z
    .array(z.enum(CONTENT, { error: CONTENT_WORDS }), { error: CONTENT_WORDS })
    .refine((content) => content.includes('picks') || content.includes('results'), CONTENT_WORDS),
  sports: names('sports'),
  leagues: names('leagues'),
  from: utcTime('the first event time').nullable(),
  to: utcTime('the event time it ends before').nullable(),
  expiresAt: utcTime('the expiry'),
  ratePerMinute: z
    .number({ error: `must be a whole number of requests a minute, 1 to ${MAX_RATE_PER_MINUTE}` })
    .int(`must be a whole number of requests a minute, 1 to ${MAX_RATE_PER_MINUTE}`)
    .min(1, `must be a whole number of requests a minute, 1 to ${MAX_RATE_PER_MINUTE}`)
    .max(MAX_RATE_PER_MINUTE, `must be a whole number of requests a minute, 1 to ${MAX_RATE_PER_MINUTE}`),
  dailyRecords: z
    .number({ error: `must be a whole number of records a day, 1 to ${MAX_DAILY_RECORDS}` })
    .int(`must be a whole number of records a day, 1 to ${MAX_DAILY_RECORDS}`)
    .min(1, `must be a whole number of records a day, 1 to ${MAX_DAILY_RECORDS}`)
    .max(MAX_DAILY_RECORDS, `must be a whole number of records a day, 1 to ${MAX_DAILY_RECORDS}`),
};

/** The most an editor may give their own tokens; admins set it (lib/tokens/ceilings.ts). */
export type TokenCeilings = z.infer<typeof ceilingsSchema>;

export const NO_CEILINGS: TokenCeilings = { ratePerMinute: MAX_RATE_PER_MINUTE, dailyRecords: MAX_DAILY_RECORDS };

/** A ceilings body as the OpenAPI document shows it: the schemas `checkCeilings` checks each field with. */
export const ceilingsBody = z.strictObject({ ratePerMinute: fields.ratePerMinute, dailyRecords: fields.dailyRecords });

/** Ceilings from a request body: both whole numbers within the portal's own bounds, every wrong one named. */
export function checkCeilings(body: unknown): TokenCeilings {
  const input = (body ?? {}) as Record<string, unknown>;
  const problems: Record<string, string> = {};
  for (const key of Object.keys(input)) if (key !== 'ratePerMinute' && key !== 'dailyRecords') problems[shown(key)] = 'is not a ceiling';
  const rate = fields.ratePerMinute.safeParse(input.ratePerMinute);
  const daily = fields.dailyRecords.safeParse(input.dailyRecords);
  if (!rate.success) problems.ratePerMinute = rate.error.issues[0]?.message ?? 'is not valid';
  if (!daily.success) problems.dailyRecords = daily.error.issues[0]?.message ?? 'is not valid';
  if (Object.keys(problems).length > 0) throw invalidFields('ceilings', problems, 'INVALID_TOKEN');
  return { ratePerMinute: rate.data!, dailyRecords: daily.data! };
}

export interface TokenSettings {
  name: string;
  scope: TokenScope;
  expiresMs: number;
  ratePerMinute: number;
  dailyRecords: number;
}

const KNOWN = ['name', 'scope', 'expiresAt', 'ratePerMinute', 'dailyRecords'];
const KNOWN_SCOPE = ['content', 'sports', 'leagues', 'from', 'to'];

/**
 * A token's settings from a request body: all of them when creating (`current` null), any of them when
 * changing. Every wrong field is named at once; sports and leagues must be ones the licence grants (when
 * /me states them), the window must be a window, and the expiry in the future (at most two years ahead).
 */
export function checkTokenSettings(
  body: unknown,
  current: TokenSettings | null,
  licence: LicenceSummary | null,
  now = Date.now(),
  /** The most an admin lets editors give their own tokens (null: an admin is making it, no ceiling but the portal's). */
  ceilings: TokenCeilings | null = null,
): TokenSettings {
  const problems: Record<string, string> = {};
  const input = (body ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!KNOWN.includes(key)) problems[shown(key)] = 'is not a setting of a token';
  const scopeInput = input.scope === undefined ? {} : input.scope;
  if (input.scope !== undefined && (scopeInput === null || typeof scopeInput !== 'object' || Array.isArray(scopeInput)))
    problems.scope = 'must be an object with content, sports, leagues and optionally from and to';
  const scopeBody = (problems.scope ? {} : scopeInput) as Record<string, unknown>;
  for (const key of Object.keys(scopeBody)) if (!KNOWN_SCOPE.includes(key)) problems[`scope.${shown(key)}`] = 'is not part of a scope';

  const read = <T>(field: string, schema: z.ZodType<T>, value: unknown, fallback: T | undefined): T | undefined => {
    if (value === undefined) {
      if (fallback === undefined) problems[field] = 'is required';
      return fallback;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    problems[field] = parsed.error.issues[0]?.message ?? 'is not valid';
    return undefined;
  };
  const was = current?.scope;
  const name = read('name', fields.name, input.name, current?.name);
  const content = read('scope.content', fields.content, scopeBody.content, was?.content);
  const sports = read('scope.sports', fields.sports, scopeBody.sports, was?.sports ?? []);
  const leagues = read('scope.leagues', fields.leagues, scopeBody.leagues, was?.leagues ?? []);
  const from = read('scope.from', fields.from, scopeBody.from, was?.from ?? null);
  const to = read('scope.to', fields.to, scopeBody.to, was?.to ?? null);
  const expiresAt = read('expiresAt', fields.expiresAt, input.expiresAt, current ? new Date(current.expiresMs).toISOString() : undefined);
  const ratePerMinute = read('ratePerMinute', fields.ratePerMinute, input.ratePerMinute, current?.ratePerMinute);
  const dailyRecords = read('dailyRecords', fields.dailyRecords, input.dailyRecords, current?.dailyRecords);

  // Only what the licence grants, when /me says what that is.
  const outside = (chosen: string[] | undefined, granted: string[] | null | undefined) =>
    chosen && granted ? chosen.filter((value) => !granted.includes(value)) : [];
  const sportsOutside = outside(sports, licence?.sports);
  if (sportsOutside.length > 0 && !problems['scope.sports'])
    problems['scope.sports'] =
      `${sportsOutside.map((s) => `"${s.slice(0, 60)}"`).join(', ')} ${sportsOutside.length > 1 ? 'are' : 'is'} not in the licence`;
  const leaguesOutside = outside(leagues, licence?.leagues);
  if (leaguesOutside.length > 0 && !problems['scope.leagues'])
    problems['scope.leagues'] =
      `${leaguesOutside.map((l) => `"${l.slice(0, 60)}"`).join(', ')} ${leaguesOutside.length > 1 ? 'are' : 'is'} not in the licence`;
  if (from && to && Date.parse(from) >= Date.parse(to) && !problems['scope.to']) problems['scope.to'] = 'must be after scope.from';
  if (expiresAt && !problems.expiresAt) {
    const at = Date.parse(expiresAt);
    if (at <= now) problems.expiresAt = 'must be in the future';
    else if (at - now > MAX_LIFETIME_MS) problems.expiresAt = 'must be at most two years ahead';
  }
  if (ceilings && ratePerMinute !== undefined && ratePerMinute > ceilings.ratePerMinute && !problems.ratePerMinute)
    problems.ratePerMinute = `must be at most ${ceilings.ratePerMinute} requests a minute, the most an admin lets editors give a token`;
  if (ceilings && dailyRecords !== undefined && dailyRecords > ceilings.dailyRecords && !problems.dailyRecords)
    problems.dailyRecords = `must be at most ${ceilings.dailyRecords} records a day, the most an admin lets editors give a token`;
  if (Object.keys(problems).length > 0) throw invalidFields('token', problems, 'INVALID_TOKEN');
  return {
    name: name!,
    scope: {
      content: CONTENT.filter((c) => content!.includes(c)),
      sports: [...new Set(sports!)],
      leagues: [...new Set(leagues!)],
      from: from ? new Date(from).toISOString() : null,
      to: to ? new Date(to).toISOString() : null,
    },
    expiresMs: Date.parse(expiresAt!),
    ratePerMinute: ratePerMinute!,
    dailyRecords: dailyRecords!,
  };
}

/**
 * What each content is made of: a pick's insight (its price, probability, tier and reasoning) is `picks`; its
 * outcome (result, settledAt) is `results`. A token without one of them gets records without its fields, on
 * every endpoint it may read (docs/api-v1.md): a picks-only token does not learn outcomes through
 * /picks?status=settled, a results-only token does not read the reasoning through /results.
 */
export const CONTENT_FIELDS: Record<Content, readonly string[]> = {
  picks: ['odds', 'oddsFormat', 'bookmaker', 'probability', 'confidenceTier', 'reasoning'],
  results: ['result', 'settledAt'],
  changes: [],
};

/** The fields a scope leaves out of every record (none when it holds every content). */
export function withheldFields(scope: TokenScope): string[] {
  return CONTENT.filter((content) => !scope.content.includes(content)).flatMap((content) => CONTENT_FIELDS[content]);
}

/** A record as a scope may read it: the fields of a content it lacks left out. */
export function projectRecord<T extends object>(record: T, withheld: readonly string[]): T {
  if (withheld.length === 0) return record;
  const copy = { ...record } as Record<string, unknown>;
  for (const field of withheld) delete copy[field];
  return copy as T;
}

/** Whether a record is inside a scope (content is judged by the endpoint, before any record is read). */
export function inScope(record: { sport?: unknown; league?: unknown; eventDate?: unknown }, scope: TokenScope): boolean {
  if (scope.sports.length > 0 && !scope.sports.includes(record.sport as string)) return false;
  if (scope.leagues.length > 0 && !scope.leagues.includes(record.league as string)) return false;
  if (scope.from === null && scope.to === null) return true;
  const at = typeof record.eventDate === 'string' ? Date.parse(record.eventDate) : Number.NaN;
  // A record without a readable event date cannot be shown to be inside a window.
  if (Number.isNaN(at)) return false;
  return (scope.from === null || at >= Date.parse(scope.from)) && (scope.to === null || at < Date.parse(scope.to));
}

/** The scope in words, for lists and the audit trail. */
export function describeScope(scope: TokenScope): string {
  const parts = [
    scope.content.join(' and '),
    scope.sports.length > 0 ? scope.sports.join(', ') : 'every licensed sport',
    ...(scope.leagues.length > 0 ? [`leagues ${scope.leagues.join(', ')}`] : []),
    ...(scope.from || scope.to ? [`events ${scope.from ?? '…'} to ${scope.to ?? '…'}`] : []),
  ];
  return parts.join('; ');
}
