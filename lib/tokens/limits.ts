import 'server-only';
import { RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { getStore } from '../store';
import { storeRateLimiter } from '../store/rate-limits';
import { processSlot, promiseSlot } from '../process-state';
import type { ApiToken } from '../store/tokens';
import { V1Error } from './refusal';
import { DAY_MS, utcDay } from '../time';
import { currentAccount } from '../auth/accounts';
import { readCeilings } from './ceilings';
import type { TokenCeilings } from './scope';

/**
 * Each token's rate (requests a minute) and daily record quota, counted by rate-limiter-flexible in the store,
 * so every instance counts the same requests and records. Tokens differ in their limits, so the counters are
 * kept with a ceiling no token reaches and each token's own limit is compared here.
 * The quota is reserved before the upstream is asked (the page size is capped to what is left) and what the
 * page did not use is given back: concurrent requests never serve more than the quota.
 */

export interface TokenLimiters {
  rate: RateLimiterStoreAbstract;
  quota: RateLimiterStoreAbstract;
}

const CEILING = 1_000_000_000_000;

const limiters = () =>
  promiseSlot<TokenLimiters>('tokenLimits').once(async () => {
    const store = await getStore();
    return {
      rate: storeRateLimiter(store, { keyPrefix: 'token-rate', points: CEILING, duration: 60 }),
      quota: storeRateLimiter(store, { keyPrefix: 'token-quota', points: CEILING, duration: 2 * 86_400 }),
    };
  });

/** The ceilings read at most every CEILINGS_MS per process: an admin's change holds everywhere within it. */
const CEILINGS_MS = 5_000;
const ceilingsSeen = () =>
  processSlot<{ at: number; ceilings: TokenCeilings | null }>('tokenCeilingsSeen').once(() => ({ at: 0, ceilings: null }));

async function currentCeilings(now: number): Promise<TokenCeilings> {
  const seen = ceilingsSeen();
  if (!seen.ceilings || now - seen.at > CEILINGS_MS) Object.assign(seen, { at: now, ceilings: await readCeilings() });
  return seen.ceilings!;
}

/**
 * The limits a token may use now: its own, capped by what its owner may grant today — an admin owner no ceiling,
 * anyone else the editors' ceilings as they stand (a token an admin made keeps no limits above them once its owner
 * is an editor, or the ceilings are lowered).
 */
export async function limitsOf(token: ApiToken, now = Date.now()): Promise<{ ratePerMinute: number; dailyRecords: number }> {
  const owner = await currentAccount(token.owner, now);
  if (owner?.role === 'admin') return { ratePerMinute: token.ratePerMinute, dailyRecords: token.dailyRecords };
  const ceilings = await currentCeilings(now);
  return {
    ratePerMinute: Math.min(token.ratePerMinute, ceilings.ratePerMinute),
    dailyRecords: Math.min(token.dailyRecords, ceilings.dailyRecords),
  };
}

const secondsToMidnight = (now = Date.now()) => Math.max(1, Math.ceil((Date.parse(`${utcDay(now)}T00:00:00Z`) + DAY_MS - now) / 1000));

async function counted<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error as T;
    throw error;
  }
}

/** Counts one request; refuses it (429) past the token's requests a minute. */
export async function takeRequest(token: ApiToken): Promise<void> {
  const { rate } = await limiters();
  const { ratePerMinute } = await limitsOf(token);
  const res = await counted(rate.consume(token.id, 1));
  if (res.consumedPoints > ratePerMinute) {
    throw new V1Error(
      429,
      'RATE_LIMITED',
      `This token may make ${ratePerMinute} requests a minute. Try again in a moment.`,
      Math.ceil(res.msBeforeNext / 1000),
    );
  }
}

/**
 * Counts a page read ahead for the token as one of its requests; false (nothing counted) unless room is left
 * after it for the consumer's own next request: reading ahead never makes a consumer's request 429.
 */
export async function takeAheadRequest(token: ApiToken): Promise<boolean> {
  try {
    const { rate } = await limiters();
    const { ratePerMinute } = await limitsOf(token);
    const res = await counted(rate.consume(token.id, 1));
    if (res.consumedPoints + 1 <= ratePerMinute) return true;
    await rate.reward(token.id, 1);
    return false;
  } catch {
    return false; // the store is away: nothing is read ahead
  }
}

/** Gives back one request's count: the consumer's request was answered by a page already counted when read ahead. */
export async function giveBackRequest(token: ApiToken): Promise<void> {
  const { rate } = await limiters();
  await rate.reward(token.id, 1).catch(() => undefined);
}

/**
 * Reserves up to `wanted` records of today's quota; refuses (429 until midnight UTC) when none is left. One
 * counted step when the page is full (the reservation is taken first, and what it did not need given back).
 */
export async function reserveRecords(
  token: ApiToken,
  wanted: number,
  now = Date.now(),
): Promise<{ granted: number; settle: (used: number) => Promise<void> }> {
  const { quota } = await limiters();
  const { dailyRecords } = await limitsOf(token, now);
  const key = `${token.id}:${utcDay(now)}`;
  const taken = await counted(quota.consume(key, wanted));
  const left = dailyRecords - (taken.consumedPoints - wanted);
  if (left <= 0) {
    await quota.reward(key, wanted);
    throw new V1Error(
      429,
      'QUOTA_EXCEEDED',
      `This token has read its ${dailyRecords} records for today (UTC). It may read again from midnight UTC.`,
      secondsToMidnight(now),
    );
  }
  const granted = Math.min(wanted, left);
  if (granted < wanted) await quota.reward(key, wanted - granted);
  return {
    granted,
    settle: async (used) => {
      if (used < granted) await quota.reward(key, granted - used);
    },
  };
}
