import 'server-only';
import type { PortalSession } from '../auth/session';
import { settle, type Settled } from '../errors';
import { licenceOrNull } from '../picks-api/portal';
import { fromStore } from '../store';
import { getToken, listTokens, usageOf, usageSummary, type DayUsage } from '../store/tokens';
import { utcDay } from './limits';
import { flushUsage } from './usage';
import { tokenView, type TokenView } from './view';

/** What the /tokens pages show: admins every token, editors their own; the licence's sports and leagues to choose from. */

type User = PortalSession['user'];

export async function tokensForPage(user: User): Promise<Settled<TokenView[]>> {
  return settle(
    (async () => {
      const [tokens, usage] = await Promise.all([
        fromStore((db) => listTokens(db, user.role === 'admin' ? null : user.email)),
        fromStore((db) => usageSummary(db, utcDay())),
      ]);
      return tokens.map((token) => tokenView(token, usage.get(token.id)));
    })(),
  );
}

/** One token and its last 30 days, or null when there is none this person may see. */
export async function tokenForPage(user: User, id: string): Promise<Settled<{ token: TokenView; days: DayUsage[] } | null>> {
  return settle(
    (async () => {
      const token = /^tok_[0-9a-f]{12}$/.test(id) ? await fromStore((db) => getToken(db, id)) : null;
      if (!token || (user.role !== 'admin' && token.owner !== user.email)) return null;
      await flushUsage();
      const [usage, days] = await Promise.all([
        fromStore((db) => usageSummary(db, utcDay())),
        fromStore((db) => usageOf(db, id, utcDay(Date.now() - 29 * 86_400_000))),
      ]);
      return { token: tokenView(token, usage.get(id)), days };
    })(),
  );
}

/** The sports and leagues a scope may be chosen from: the licence's, when /me states them. */
export async function licenceChoices(): Promise<{ sports: string[]; leagues: string[] }> {
  const licence = await licenceOrNull();
  return { sports: licence?.sports ?? [], leagues: licence?.leagues ?? [] };
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
