import 'server-only';
import { mayAct } from '../auth/principal';
import type { PortalSession } from '../auth/principal';
import { tokenPrincipal } from './access';
import { fromStore } from '../store';
import { getToken, listTokens, usageOf, usageSummary, type ApiToken, type DayUsage } from '../store/tokens';
import { utcDay } from '../time';
import { flushUsage } from './usage';
import { tokenView, type TokenView } from './view';

/** What the tokens API and pages read: admins every token, editors their own; a token's recent use. */

type User = PortalSession['user'];
const USAGE_DAYS = 30;

export async function tokenViews(user: User): Promise<TokenView[]> {
  const [tokens, usage] = await Promise.all([
    fromStore((db) => listTokens(db, user.role === 'admin' ? null : user.email)),
    fromStore((db) => usageSummary(db, utcDay())),
  ]);
  const suspended = await Promise.all(tokens.map(suspendedBecause));
  return tokens.map((token, i) => tokenView(token, usage.get(token.id), suspended[i]!));
}

/** Why the token's owner may not act through it now (the one rule, lib/auth/principal.ts), or null. */
export async function suspendedBecause(token: ApiToken): Promise<string | null> {
  if (token.revokedMs !== null) return null;
  const owner = await mayAct(tokenPrincipal(token), 'tokens');
  return owner.ok ? null : owner.reason;
}

/** The token, or null when there is none this person may see (someone else's is, for an editor, none). */
export async function visibleToken(user: User, id: string): Promise<ApiToken | null> {
  const token = /^tok_[0-9a-f]{12}$/.test(id) ? await fromStore((db) => getToken(db, id)) : null;
  return token && (user.role === 'admin' || token.owner === user.email) ? token : null;
}

/** A token as listed (today's use, last use). */
export async function viewOf(token: ApiToken): Promise<TokenView> {
  const [usage, suspended] = await Promise.all([fromStore((db) => usageSummary(db, utcDay())), suspendedBecause(token)]);
  return tokenView(token, usage.get(token.id), suspended);
}

/** A token's use per day over the last 30 days (days without use left out), this instance's latest counts first. */
export async function recentUsage(tokenId: string): Promise<{ since: string; days: DayUsage[] }> {
  await flushUsage();
  const since = utcDay(Date.now() - (USAGE_DAYS - 1) * 86_400_000);
  return { since, days: await fromStore((db) => usageOf(db, tokenId, since)) };
}
