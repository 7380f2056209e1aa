import type { ApiToken, UsageSummary } from '../store/tokens';
import type { z } from 'zod';
import type { TOKEN_STATES, tokenViewSchema } from '../vocabulary/token-view';
import { describeScope } from './scope';

/** A token as the API and pages show it: never its secret, only the first characters that tell it apart. */

export type TokenState = (typeof TOKEN_STATES)[number];
export type TokenView = z.infer<typeof tokenViewSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function tokenState(token: Pick<ApiToken, 'revokedMs' | 'expiresMs'>, suspended: string | null, now = Date.now()): TokenState {
  if (token.revokedMs !== null) return 'revoked';
  if (token.expiresMs <= now) return 'expired';
  return suspended ? 'suspended' : 'active';
}

/** `suspended`: why its owner may not act now (lib/auth/principal.ts), or null when they may. */
export function tokenView(token: ApiToken, usage: UsageSummary | undefined, suspended: string | null, now = Date.now()): TokenView {
  const state = tokenState(token, suspended, now);
  const today = usage?.today ?? null;
  return {
    id: token.id,
    name: token.name,
    owner: token.owner,
    prefix: token.prefix,
    scope: token.scope,
    scopeText: describeScope(token.scope),
    state,
    suspended: state === 'suspended' ? suspended : null,
    expiresAt: iso(token.expiresMs)!,
    ratePerMinute: token.ratePerMinute,
    dailyRecords: token.dailyRecords,
    createdAt: iso(token.createdMs)!,
    createdBy: token.createdBy,
    updatedAt: iso(token.updatedMs)!,
    revokedAt: iso(token.revokedMs),
    revokedBy: token.revokedBy,
    today: today
      ? {
          requests: today.requests,
          records: today.records,
          bytes: today.bytes,
          clientErrors: today.clientErrors,
          throttled: today.throttled,
          lastAddress: today.lastAddress,
        }
      : null,
    lastUsedAt: iso(usage?.lastMs ?? null),
    lastAddress: today?.lastAddress ?? null,
    previous:
      token.previous && token.previous.untilMs > now ? { prefix: token.previous.prefix, until: iso(token.previous.untilMs)! } : null,
    rolledAt: iso(token.rolledMs ?? null),
  };
}
