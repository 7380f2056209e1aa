import type { Kysely } from 'kysely';
import { queueAlerts, type AlertInput } from '../store/alerts';
import type { Database } from '../store/schema';
import { DAY_MS, utcDay } from '../time';
import { listTokens, usageSummary, type ApiToken } from '../store/tokens';

/**
 * API tokens that need someone's attention, checked at each alert check by every instance: a token that has
 * read its whole daily quota, one that expires within 7 days, one unused for 30 days. Each alert's id is made
 * from the moment it stands for (the day, the expiry, the last use), so it is raised once however many
 * instances look, and again only when the moment changes (another day over quota, a new expiry, a new idle spell).
 */

export const EXPIRY_WARNING_MS = 7 * DAY_MS;
export const UNUSED_AFTER_MS = 30 * DAY_MS;

type Db = Kysely<Database>;

export interface TokenAttention {
  token: ApiToken;
  kind: 'token.quota' | 'token.expiring' | 'token.unused';
  /** The moment the alert stands for: its id. */
  atMs: number;
  reason: string;
}

/** What each live token needs now (pure but for the reads). */
export async function tokensNeedingAttention(db: Db, now: number): Promise<TokenAttention[]> {
  const tokens = (await listTokens(db, null)).filter((t) => t.revokedMs === null && t.expiresMs > now);
  if (tokens.length === 0) return [];
  const usage = await usageSummary(db, utcDay(now));
  const found: TokenAttention[] = [];
  for (const token of tokens) {
    const used = usage.get(token.id);
    const today = used?.today?.records ?? 0;
    if (today >= token.dailyRecords)
      found.push({
        token,
        kind: 'token.quota',
        atMs: Date.parse(`${utcDay(now)}T00:00:00Z`),
        reason: `Read its whole quota of ${token.dailyRecords} records today (UTC); further requests are refused with 429 until midnight UTC`,
      });
    if (token.expiresMs - now <= EXPIRY_WARNING_MS)
      found.push({
        token,
        kind: 'token.expiring',
        atMs: token.expiresMs,
        reason: `Expires at ${new Date(token.expiresMs).toISOString()}; make a new token for the system that uses it before then`,
      });
    const since = used?.lastMs ?? token.createdMs;
    if (now - since >= UNUSED_AFTER_MS)
      found.push({
        token,
        kind: 'token.unused',
        atMs: since,
        reason: `${used?.lastMs ? 'Not used' : 'Never used'} since ${new Date(since).toISOString()}; revoke it if no system needs it`,
      });
  }
  return found;
}

export async function checkTokens(db: Db, now: number): Promise<number> {
  const found = await tokensNeedingAttention(db, now);
  const alerts: AlertInput[] = found.map((f) => ({
    kind: f.kind,
    sport: `token ${f.token.name} (${f.token.id})`,
    state: f.kind === 'token.quota' ? 'over quota' : f.kind === 'token.expiring' ? 'expiring' : 'unused',
    side: null,
    reason: f.reason,
    detail: null,
    createdMs: f.atMs,
    dueMs: now,
  }));
  await queueAlerts(db, alerts);
  return alerts.length;
}
