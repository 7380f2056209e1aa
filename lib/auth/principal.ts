import 'server-only';
import type { Kysely } from 'kysely';
import type { Session } from 'next-auth';
import { getConfig } from '../config';
import type { Database } from '../store/schema';
import { findUser } from '../store/users';
import { currentAccount, isDemoAccount } from './accounts';
import { can, isRole, type Capability, type Role } from '../vocabulary/roles';
import type { StoredUser } from './users';

/** A signed-in person with a known role: who acts, as every page, handler and feature takes it (read by lib/http/session.ts). */
export type PortalSession = Session & { user: Session['user'] & { role: Role } };

/**
 * The one rule for who may act (docs/security.md#who-may-act). Every request and every piece of background
 * work acts for a principal: a signed-in person, an API token and its owner, a delivery and its owner, an
 * alert recipient. `mayAct` says whether that principal may still do this now: the account exists (and is
 * the one the token or delivery was given to), is enabled, is not a demo account where those are refused,
 * and its role grants the capability. Accounts are re-read through a short cache (ACCOUNT_CACHE_MS), so a
 * change made on any instance holds on every instance within seconds. Sessions add their own checks
 * (identity, sign-out, epoch) in lib/auth/session-token.ts, which judges the account with `standing` below.
 */

export type Principal =
  /** A signed-in person, with the role their session carries now (a single sign-on role comes from the provider). */
  | { kind: 'person'; email: string; role: Role }
  /** An API token acts for its owner, who must hold the account they held when it was given to them. */
  | { kind: 'token'; id: string; owner: string; ownerSinceMs: number }
  /** A scheduled delivery acts for the person who made it (the account they held when they made it). */
  | { kind: 'delivery'; id: string; owner: string; ownerSinceMs: number }
  /** Someone an alert is sent to. */
  | { kind: 'recipient'; email: string };

export type Refusal = 'removed' | 'disabled' | 'demo' | 'capability';
export type Standing = { ok: true; account: StoredUser; role: Role } | { ok: false; refusal: Refusal; reason: string };

const CLOCK_SLACK_MS = 60_000;
const WHOSE: Record<Principal['kind'], string> = { person: 'account', token: 'owner', delivery: 'owner', recipient: 'account' };
const SAID: Record<Exclude<Refusal, 'capability'>, string> = { removed: 'removed', disabled: 'disabled', demo: 'a demo account' };

/** Pure: what the account as the store has it now allows this principal (null capability: only that it may act at all). */
export function standing(
  account: StoredUser | undefined,
  principal: Principal,
  capability: Capability | null,
  demoRefused: boolean,
): Standing {
  // The words a refusal is shown in: "owner disabled", "account removed".
  const refuse = (refusal: Exclude<Refusal, 'capability'>): Standing => ({
    ok: false,
    refusal,
    reason: `${WHOSE[principal.kind]} ${SAID[refusal]}`,
  });
  if (!account) return refuse('removed');
  // The same address removed and added again is another account: what the old one was given does not pass to it.
  // (Instances' clocks may differ a little: an account made within a minute of the grant is taken to be the same.)
  if (
    (principal.kind === 'token' || principal.kind === 'delivery') &&
    Date.parse(account.createdAt) > principal.ownerSinceMs + CLOCK_SLACK_MS
  )
    return refuse('removed');
  if (account.disabled) return refuse('disabled');
  if (demoRefused && isDemoAccount(account)) return refuse('demo');
  const role = principal.kind === 'person' ? principal.role : account.role;
  if (capability && !can(role, capability))
    return { ok: false, refusal: 'capability', reason: `${WHOSE[principal.kind]} is a ${role}, who may not use ${capability}` };
  return { ok: true, account, role };
}

/** Demo accounts act only beside the sandbox upstream (refused too when the configuration cannot be read). */
export function demoRefused(): boolean {
  try {
    return !getConfig().PORTAL_SANDBOX;
  } catch {
    return true;
  }
}

/** May this principal do this now? The one question every route, API v1 request, job and command asks. */
export async function mayAct(principal: Principal, capability: Capability | null, now = Date.now()): Promise<Standing> {
  const email = principal.kind === 'person' || principal.kind === 'recipient' ? principal.email : principal.owner;
  return standing(await currentAccount(email, now), principal, capability, demoRefused());
}

/** The same question for background work that holds its store (a delivery's run): the account read afresh from it. */
export async function mayActIn(db: Kysely<Database>, principal: Exclude<Principal, { kind: 'person' }>, capability: Capability | null) {
  const email = principal.kind === 'recipient' ? principal.email : principal.owner;
  const found = await findUser(db, email);
  const account = found && isRole(found.role) ? { ...found, role: found.role } : undefined;
  return standing(account, principal, capability, demoRefused());
}
