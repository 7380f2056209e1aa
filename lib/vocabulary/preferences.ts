/**
 * Each person's display preferences: the time zone of every time shown, the theme, the records tables'
 * density. Kept with the person in the store (followed in every browser they sign in to) and, for the
 * pages to read without a store query, in cookies of this browser. Shared by server and browser code, so it
 * holds no validator (zod would weigh on every page's JavaScript): the schema is in ./schema.ts.
 */

export const PREFERENCE_COOKIES = { timeZone: 'tz', theme: 'theme', density: 'density' } as const;
/** Names the person whose preferences this browser's cookies hold (a keyed digest of their email, lib/preferences/server.ts). */
export const PREFERENCES_OF_COOKIE = 'prefs-of';
export const PREFERENCE_MAX_AGE = 31_536_000; // a year

export interface Preferences {
  /** An IANA zone (Europe/Berlin, UTC); null: the browser's own. */
  timeZone?: string | null;
  theme?: 'system' | 'light' | 'dark';
  density?: 'compact' | 'comfortable';
}
