import 'server-only';
import type { PortalSession } from '../auth/principal';
import { settle, type Settled } from '../errors';
import { licenceOrNull } from '../picks-api/portal';
import { seenScope } from '../deliveries/filter-rules';
import type { Vocabulary } from '../sport-leagues';
import type { DayUsage } from '../store/tokens';
import { utcDay } from '../time';
import { recentUsage, tokenViews, viewOf, visibleToken } from '../tokens/read';
import type { TokenView } from '../tokens/view';

/** What the /tokens pages show: admins every token, editors their own; the licence's sports and leagues to choose from. */

type User = PortalSession['user'];

export function tokensForPage(user: User): Promise<Settled<TokenView[]>> {
  return settle(tokenViews(user));
}

/** One token and its last 30 days, or null when there is none this person may see. */
export function tokenForPage(user: User, id: string): Promise<Settled<{ token: TokenView; days: DayUsage[] } | null>> {
  return settle(
    (async () => {
      const token = await visibleToken(user, id);
      if (!token) return null;
      const [view, usage] = await Promise.all([viewOf(token), recentUsage(id)]);
      return { token: view, days: usage.days };
    })(),
  );
}

/** The sports and leagues a scope may be chosen from (the licence's, when /me states them), and the leagues seen under each sport. */
export async function licenceChoices(): Promise<Vocabulary> {
  const [licence, seen] = await Promise.all([licenceOrNull(), seenScope()]);
  return { sports: licence?.sports ?? [], leagues: licence?.leagues ?? [], leaguesBySport: seen, unread: licence === null };
}

/** The expiry a new token is offered: 90 days from today (YYYY-MM-DD, UTC). */
export const defaultExpiry = (now = Date.now()) => utcDay(now + 90 * 86_400_000);

export interface TokenNearLimit {
  id: string;
  name: string;
  /** What is near: in words. */
  why: string;
}

/** Live tokens this person may see that have used 80 % of today's quota or expire within 7 days (the overview). */
export async function tokensNearLimits(user: User, now = Date.now()): Promise<TokenNearLimit[]> {
  const listed = await tokensForPage(user);
  if (!listed.ok) return [];
  const out: TokenNearLimit[] = [];
  for (const token of listed.value) {
    if (token.state !== 'active') continue;
    const reasons: string[] = [];
    const share = (token.today?.records ?? 0) / token.dailyRecords;
    if (share >= 0.8) reasons.push(`${Math.min(100, Math.round(share * 100))} % of today’s quota used`);
    const left = Date.parse(token.expiresAt) - now;
    if (left <= 7 * 86_400_000) reasons.push(`expires in ${Math.max(1, Math.ceil(left / 86_400_000))} day${left > 86_400_000 ? 's' : ''}`);
    if (reasons.length > 0) out.push({ id: token.id, name: token.name, why: reasons.join('; ') });
  }
  return out;
}
