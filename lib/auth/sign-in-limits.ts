import { RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import pLimit, { type LimitFunction } from 'p-limit';
import { addressBucket } from '../net/addresses';
import { getStore } from '../store';
import { storeRateLimiter } from '../store/rate-limits';
import { processSlot, promiseSlot } from '../process-state';

/**
 * Sign-in limits (counting by rate-limiter-flexible, in the store: every instance counts the same failures).
 * The policy, checked before any password is hashed:
 * - per address, across accounts: ADDRESS_FAILURES failures an hour, then that address is blocked for
 *   an hour (password spraying). IPv6 addresses count by their /64.
 * - per account, growing: failures are counted for a day and never get a fresh budget within it;
 *   after ACCOUNT_FREE_FAILURES, each failure makes the next attempt wait twice as long (1 s, 2 s, 4 s, …
 *   up to 15 minutes). That wait applies only to addresses that have failed a sign-in recently, so an
 *   attacker cannot lock the owner out: the owner signing in from an address with no failures gets in.
 * - at most HASH_CONCURRENCY password hashes at once per process (scrypt takes 32 MiB each) and HASH_QUEUE
 *   waiting; beyond that a sign-in is refused as busy before any hashing.
 * Rows are only created by a failure an address may still make. When the store cannot be reached, the
 * check throws: no sign-in is let through uncounted.
 */

export const SIGN_IN_POLICY = {
  ADDRESS_FAILURES: 30,
  ADDRESS_WINDOW_S: 60 * 60,
  ACCOUNT_FREE_FAILURES: 5,
  ACCOUNT_WINDOW_S: 24 * 60 * 60,
  ACCOUNT_MAX_WAIT_S: 15 * 60,
  HASH_CONCURRENCY: 2,
  HASH_QUEUE: 32,
} as const;

export type SignInVerdict = { ok: true } | { ok: false; reason: 'address' | 'account' | 'busy'; retryAfterSeconds: number };

export interface Limiters {
  address: RateLimiterStoreAbstract;
  account: RateLimiterStoreAbstract;
  accountWait: RateLimiterStoreAbstract;
}

async function createLimiters(): Promise<Limiters> {
  const policy = SIGN_IN_POLICY;
  const store = await getStore();
  const [address, account, accountWait] = [
    storeRateLimiter(store, {
      keyPrefix: 'signin-address',
      points: policy.ADDRESS_FAILURES,
      duration: policy.ADDRESS_WINDOW_S,
      blockDuration: policy.ADDRESS_WINDOW_S,
    }),
    storeRateLimiter(store, { keyPrefix: 'signin-account', points: 1_000_000, duration: policy.ACCOUNT_WINDOW_S }),
    storeRateLimiter(store, { keyPrefix: 'signin-account-wait', points: 1, duration: policy.ACCOUNT_MAX_WAIT_S }),
  ];
  return { address, account, accountWait };
}

// One set per process (lib/process-state.ts). A failed creation is forgotten.
const limitersSlot = promiseSlot<Limiters>('signInLimits');
const limiters = (): Promise<Limiters> => limitersSlot.once(createLimiters);
const hashing = () => processSlot<LimitFunction>('hashing').once(() => pLimit(SIGN_IN_POLICY.HASH_CONCURRENCY));

const seconds = (res: RateLimiterRes | null) => Math.max(1, Math.ceil((res?.msBeforeNext ?? 1000) / 1000));

/** Whether a sign-in for this account from this address may be tried now. Spends nothing. */
export async function checkSignIn(account: string, address: string): Promise<SignInVerdict> {
  const limits = await limiters();
  const [byAddress, wait] = await Promise.all([limits.address.get(addressBucket(address)), limits.accountWait.get(account)]);
  if (byAddress && byAddress.consumedPoints > SIGN_IN_POLICY.ADDRESS_FAILURES)
    return { ok: false, reason: 'address', retryAfterSeconds: seconds(byAddress) };
  // The account's wait holds back only addresses that have failed before: the owner elsewhere is not locked out.
  if (wait && wait.consumedPoints > 1 && byAddress && byAddress.consumedPoints > 0)
    return { ok: false, reason: 'account', retryAfterSeconds: seconds(wait) };
  if (hashing().pendingCount >= SIGN_IN_POLICY.HASH_QUEUE) return { ok: false, reason: 'busy', retryAfterSeconds: 2 };
  return { ok: true };
}

/** Runs a password check within the hashing limit. */
export function limitHashing<T>(work: () => Promise<T>): Promise<T> {
  return hashing()(work);
}

export async function recordSignInFailure(account: string, address: string): Promise<void> {
  const limits = await limiters();
  await limits.address.consume(addressBucket(address)).catch((res: unknown) => {
    if (!(res instanceof RateLimiterRes)) throw res;
  });
  const counted = await limits.account.penalty(account, 1);
  const over = counted.consumedPoints - SIGN_IN_POLICY.ACCOUNT_FREE_FAILURES;
  if (over > 0) await limits.accountWait.block(account, Math.min(SIGN_IN_POLICY.ACCOUNT_MAX_WAIT_S, 2 ** (over - 1)));
}

export async function recordSignInSuccess(account: string): Promise<void> {
  const limits = await limiters();
  await Promise.all([limits.account.delete(account), limits.accountWait.delete(account)]);
}

/** For tests: forget every count of the process's (possibly new) store. */
export async function resetSignInLimits(): Promise<void> {
  limitersSlot.set(undefined);
  const { db } = await getStore();
  await db.deleteFrom('rate_limits').execute();
}
