import { z } from 'zod';
import { tokenScopeSchema } from './tokens';

/**
 * An API token as the portal's API answers it (lib/tokens/view.ts: `TokenView` is this type) — never its secret,
 * only the first characters that tell it apart — and the answers of /api/tokens built from it. The portal API's
 * OpenAPI document is made from the same schemas (lib/openapi/portal-operations.ts).
 */

/** One UTC day of a token's use, as the store keeps it (lib/store/tokens.ts `DayUsage`). */
export const dayUsageSchema = z.strictObject({
  day: z.string().meta({ description: 'YYYY-MM-DD (UTC).' }),
  requests: z.int(),
  records: z.int(),
  bytes: z.int(),
  clientErrors: z.int(),
  throttled: z.int(),
  lastMs: z.number().meta({ description: 'The last request of the day (milliseconds since 1970).' }),
  lastAddress: z.string().nullable(),
});

/** suspended: live, but its owner may not act now (removed, disabled, demoted); `suspended` says why. */
export const TOKEN_STATES = ['active', 'expired', 'revoked', 'suspended'] as const;

export const tokenViewSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    owner: z.string(),
    prefix: z.string().meta({ description: 'The first 10 characters of the token.' }),
    scope: tokenScopeSchema,
    scopeText: z.string(),
    state: z.enum(TOKEN_STATES),
    suspended: z.string().nullable().meta({ description: 'Why a live token does not work now ("owner disabled"), or null.' }),
    expiresAt: z.string(),
    ratePerMinute: z.int(),
    dailyRecords: z.int(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    revokedAt: z.string().nullable(),
    revokedBy: z.string().nullable(),
    today: dayUsageSchema
      .omit({ day: true, lastMs: true })
      .nullable()
      .meta({ description: 'Today’s use (UTC), or null before the first request of the day.' }),
    lastUsedAt: z.string().nullable(),
    lastAddress: z.string().nullable(),
    previous: z
      .strictObject({ prefix: z.string(), until: z.string() })
      .nullable()
      .meta({ description: 'The secret it was rolled from, working until `until`; null: none, or its overlap is over.' }),
    rolledAt: z.string().nullable().meta({ description: 'When its secret was last rolled.' }),
  })
  .meta({ id: 'Token' });

export const tokensAnswerSchema = z.strictObject({ data: z.array(tokenViewSchema) }).meta({ id: 'Tokens' });

export const tokenMadeSchema = tokenViewSchema
  .extend({ token: z.string().meta({ description: 'The token itself: in this answer only.' }) })
  .meta({ id: 'TokenMade' });

/** The most an editor may give their own tokens (GET/PUT /api/tokens/ceilings; lib/tokens/scope.ts `TokenCeilings`). */
export const ceilingsSchema = z.strictObject({ ratePerMinute: z.int(), dailyRecords: z.int() }).meta({ id: 'TokenCeilings' });

/** GET /api/tokens/<id>/usage: the last 30 days, days without use left out. */
export const usageAnswerSchema = z
  .strictObject({
    token: z.strictObject({ id: z.string(), name: z.string(), dailyRecords: z.int() }),
    since: z.string(),
    days: z.array(dayUsageSchema),
  })
  .meta({ id: 'TokenUsage' });
