import { closest, distance } from 'fastest-levenshtein';

/**
 * The allowed value nearest to `value` when it is close enough to be a slip (case ignored), or null: the
 * "Did you mean …?" of the delivery form, the token form and the portal's API v1.
 */
export function nearest(value: string, allowed: readonly string[]): string | null {
  if (allowed.length === 0) return null;
  const lower = allowed.map((a) => a.toLowerCase());
  const guess = closest(value.toLowerCase(), lower);
  return distance(value.toLowerCase(), guess) <= Math.max(2, Math.floor(value.length / 3)) ? allowed[lower.indexOf(guess)]! : null;
}
