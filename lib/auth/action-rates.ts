import 'server-only';
import { RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors';
import { promiseSlot } from '../process-state';
import { getStore } from '../store';
import { storeRateLimiter } from '../store/rate-limits';

/**
 * Actions a person can repeat that reach outside the portal (a test event, a resend, a connection test) or read
 * widely (the palette's finder): each is
 * limited per person and per target, counted in the store by rate-limiter-flexible so every instance counts the
 * same tries. Past either limit the answer is 429 with `Retry-After`, and nothing is sent or audited.
 */

export const ACTION_RATES = {
  'webhook.test': { perPerson: 10, perTarget: 5, what: 'test events' },
  'webhook.resend': { perPerson: 20, perTarget: 10, what: 'resends' },
  'delivery.test': { perPerson: 10, perTarget: 5, what: 'connection tests' },
  // Each roll makes a secret and ends (or shortens) the last one's overlap.
  'token.roll': { perPerson: 10, perTarget: 5, what: 'rolls of a token' },
  // The command palette asks as a person types (its target is the person): generous, but not a flood.
  find: { perPerson: 240, perTarget: 240, what: 'searches' },
} as const;
export type RatedAction = keyof typeof ACTION_RATES;

const WINDOW_S = 60;

const limiters = () =>
  promiseSlot<Map<string, RateLimiterStoreAbstract>>('actionRates').once(async () => {
    const store = await getStore();
    const made = new Map<string, RateLimiterStoreAbstract>();
    for (const [action, rate] of Object.entries(ACTION_RATES)) {
      made.set(
        `${action}:person`,
        storeRateLimiter(store, { keyPrefix: `act-${action}-person`, points: rate.perPerson, duration: WINDOW_S }),
      );
      made.set(
        `${action}:target`,
        storeRateLimiter(store, { keyPrefix: `act-${action}-target`, points: rate.perTarget, duration: WINDOW_S }),
      );
    }
    return made;
  });

async function consume(limiter: RateLimiterStoreAbstract, key: string): Promise<RateLimiterRes | null> {
  try {
    await limiter.consume(key, 1);
    return null;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}

/** Counts one try of `action` by `person` at `target`; 429 (with Retry-After) past either limit. */
export async function takeAction(action: RatedAction, person: string, target: string): Promise<void> {
  const rate = ACTION_RATES[action];
  const made = await limiters();
  const byPerson = await consume(made.get(`${action}:person`)!, person.toLowerCase());
  const byTarget = byPerson ? null : await consume(made.get(`${action}:target`)!, target);
  const refused = byPerson ?? byTarget;
  if (!refused) return;
  const seconds = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
  throw new AppError({
    code: 'TOO_MANY_TRIES',
    message: byPerson
      ? `You may make ${rate.perPerson} ${rate.what} a minute. Try again in ${seconds} s.`
      : `This target takes ${rate.perTarget} ${rate.what} a minute from everyone together. Try again in ${seconds} s.`,
    retryAfterSeconds: seconds,
  });
}
