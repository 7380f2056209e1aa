/**
 * Slows repeated failed sign-ins, per account and per address: after FREE_FAILURES failures within the
 * window, each further attempt must wait a doubling delay (capped). In memory: one portal process.
 */

const FREE_FAILURES = 5;
const WINDOW_MS = 15 * 60_000;
const MAX_DELAY_MS = 15 * 60_000;

interface Entry {
  failures: number;
  first: number;
  blockedUntil: number;
}

const entries = new Map<string, Entry>();

/** Seconds this sign-in must still wait, or 0. */
export function signInWait(keys: string[], now = Date.now()): number {
  let until = 0;
  for (const key of keys) {
    const entry = entries.get(key);
    if (entry && now - entry.first > WINDOW_MS && now >= entry.blockedUntil) entries.delete(key);
    else if (entry) until = Math.max(until, entry.blockedUntil);
  }
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

export function recordSignInFailure(keys: string[], now = Date.now()): void {
  for (const key of keys) {
    const entry = entries.get(key) ?? { failures: 0, first: now, blockedUntil: 0 };
    entry.failures += 1;
    if (entry.failures > FREE_FAILURES) {
      entry.blockedUntil = now + Math.min(MAX_DELAY_MS, 1000 * 2 ** (entry.failures - FREE_FAILURES));
    }
    entries.set(key, entry);
  }
  if (entries.size > 50_000) entries.clear(); // bounded memory under a spray of addresses
}

export function recordSignInSuccess(keys: string[]): void {
  for (const key of keys) entries.delete(key);
}
