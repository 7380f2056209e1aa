import type { Kysely } from 'kysely';
import { queueAlerts, type AlertInput } from '../store/alerts';
import type { Database } from '../store/schema';
import { DAY_MS, utcDay } from '../time';
import { listTokens, usageSummary, type ApiToken } from '../store/tokens';

/**
 * API tokens that need someone's attention, checked at each alert check by every instance: a token that has
 * read 75 %, 90 % or all of its daily records, one that expires within 7 days, one unused for 30 days. Each alert's id is made
 * from the moment it stands for (the day, the expiry, the last use), so it is raised once however many
 * instances look, and again only when the moment changes (another day over quota, a new expiry, a new idle spell).
 */

export const EXPIRY_WARNING_MS = 7 * DAY_MS;
export const UNUSED_AFTER_MS = 30 * DAY_MS;
/** The shares of a token's daily records at which its owner and subscribed admins are warned. */
export const QUOTA_WARNINGS = [0.75, 0.9, 1] as const;

type Db = Kysely<Database>;

export interface TokenAttention {
  token: ApiToken;
  kind: 'token.quota' | 'token.expiring' | 'token.unused';
  /** The moment the alert stands for: its id. */
  atMs: number;
  reason: string;
  /** For token.quota: the share of the day's records reached. */
  share?: number;
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
    // The highest share of the day's quota reached: one alert each a day (75 %, 90 %, all), the lower ones passed by.
    const reached = QUOTA_WARNINGS.filter((share) => today >= share * token.dailyRecords).at(-1);
    if (reached !== undefined)
      found.push({
        token,
        kind: 'token.quota',
        // The day and the share: each share its own alert that day, raised once.
        atMs: Date.parse(`${utcDay(now)}T00:00:00Z`) + Math.round(reached * 100),
        reason:
          reached >= 1
            ? `Read its whole quota of ${token.dailyRecords.toLocaleString('en')} records today (UTC); further requests are refused with 429 until midnight UTC`
            : `Read ${today.toLocaleString('en')} of its ${token.dailyRecords.toLocaleString('en')} records today (UTC), ${Math.round(reached * 100)} % of its quota; at all of it requests are refused with 429 until midnight UTC`,
        share: reached,
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
    state:
      f.kind === 'token.quota'
        ? f.share! >= 1
          ? 'over quota'
          : `${Math.round(f.share! * 100)} % of its quota`
        : f.kind === 'token.expiring'
          ? 'expiring'
          : 'unused',
    side: null,
    reason: f.reason,
    detail: null,
    createdMs: f.atMs,
    dueMs: now,
  }));
  await queueAlerts(db, alerts);
  return alerts.length;
}
