import type { ApiToken, DayUsage, UsageSummary } from '../store/tokens';
import { describeScope, type TokenScope } from './scope';

/** A token as the API and pages show it: never its secret, only the first characters that tell it apart. */

export type TokenState = 'active' | 'expired' | 'revoked';

export interface TokenView {
  id: string;
  name: string;
  owner: string;
  prefix: string;
  scope: TokenScope;
  scopeText: string;
  state: TokenState;
  expiresAt: string;
  ratePerMinute: number;
  dailyRecords: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
  /** Today's use (UTC), or null before the first request of the day. */
  today: Omit<DayUsage, 'day' | 'lastMs'> | null;
  lastUsedAt: string | null;
  lastAddress: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function tokenState(token: Pick<ApiToken, 'revokedMs' | 'expiresMs'>, now = Date.now()): TokenState {
  if (token.revokedMs !== null) return 'revoked';
  return token.expiresMs <= now ? 'expired' : 'active';
}

export function tokenView(token: ApiToken, usage: UsageSummary | undefined, now = Date.now()): TokenView {
  const today = usage?.today ?? null;
  return {
    id: token.id,
    name: token.name,
    owner: token.owner,
    prefix: token.prefix,
    scope: token.scope,
    scopeText: describeScope(token.scope),
    state: tokenState(token, now),
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
  };
}
