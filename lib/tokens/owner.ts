import 'server-only';
import { recordAudit } from '../audit/record';
import { forgetAccount } from '../auth/accounts';
import { normaliseEmail } from '../auth/users';
import { fromStore } from '../store';
import { listTokens } from '../store/tokens';
import { forgetTokens } from './access';
import { suspendedBecause } from './read';

/**
 * A token acts for its owner (lib/auth/principal.ts), so a change to the owner's account (disabled, enabled,
 * removed, a new role) stops or restarts their live tokens. `ownerChange` reads each live token's standing
 * before the change and audits every token the change suspended or resumed, with the reason.
 */

type Before = Map<string, string | null>;

async function liveTokens(email: string) {
  const now = Date.now();
  return (await fromStore((db) => listTokens(db, email))).filter((token) => token.revokedMs === null && token.expiresMs > now);
}

async function standings(email: string): Promise<{ tokens: Awaited<ReturnType<typeof liveTokens>>; state: Before }> {
  const tokens = await liveTokens(email);
  const state: Before = new Map();
  for (const token of tokens) state.set(token.id, await suspendedBecause(token));
  return { tokens, state };
}

/** Around a change to an account: `await ownerChange(actor, email, () => change())`; the change's own result is returned. */
export async function ownerChange<T>(actor: { email: string; role: string | null }, email: string, change: () => Promise<T>): Promise<T> {
  const owner = normaliseEmail(email);
  const before = await standings(owner).catch(() => null);
  const result = await change();
  forgetAccount(owner);
  forgetTokens();
  if (!before || before.tokens.length === 0) return result;
  const after = await standings(owner).catch(() => null);
  for (const token of before.tokens) {
    const was = before.state.get(token.id) ?? null;
    const now = after?.state.get(token.id) ?? null;
    if (was === now || (was !== null && now !== null)) continue;
    await recordAudit({
      actor: actor.email,
      role: actor.role,
      action: now ? 'token.suspend' : 'token.resume',
      target: `${token.name} (${token.id})`,
      filters: { owner, reason: now ?? `${was} no more` },
      outcome: 'complete',
    });
  }
  return result;
}
