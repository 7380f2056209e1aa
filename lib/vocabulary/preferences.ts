/**
 * Each person's display preferences: the time zone of every time shown, the theme, the records tables'
 * density and columns, the navigation as names or as icons. Kept with the person in the store (followed in every browser they sign in to) and, for the
 * pages to read without a store query, in cookies of this browser. Shared by server and browser code, so it
 * holds no validator (zod would weigh on every page's JavaScript): the schema is in ./schema.ts.
 */

export const PREFERENCE_COOKIES = { timeZone: 'tz', theme: 'theme', density: 'density', nav: 'nav', columns: 'cols' } as const;
/** Names the person whose preferences this browser's cookies hold (a keyed digest of their email, lib/preferences/server.ts). */
export const PREFERENCES_OF_COOKIE = 'prefs-of';
export const PREFERENCE_MAX_AGE = 31_536_000; // a year

export interface Preferences {
  /** An IANA zone (Europe/Berlin, UTC); null: the browser's own. */
  timeZone?: string | null;
  theme?: 'system' | 'light' | 'dark';
  density?: 'compact' | 'comfortable';
  /** The sidebar on wide screens: names (the default) or icons only. */
  nav?: 'full' | 'icons';
  /** The records tables' hidden columns; none chosen: RECORD_COLUMNS_HIDDEN. */
  hiddenColumns?: RecordColumn[];
}

/** The records tables' columns that a person may hide (the event is always shown). */
export const RECORD_COLUMNS = [
  'eventDate',
  'competition',
  'market',
  'selection',
  'line',
  'odds',
  'bookmaker',
  'probability',
  'confidenceTier',
  'status',
  'result',
  'publishedAt',
] as const;
export type RecordColumn = (typeof RECORD_COLUMNS)[number];
/** Hidden until a person chooses: the columns that matter less give way, so the event has room at 1440 px. */
export const RECORD_COLUMNS_HIDDEN: readonly RecordColumn[] = ['competition', 'bookmaker', 'confidenceTier', 'publishedAt'];

/** The hidden columns a cookie names (comma-separated; unknown names dropped); no cookie: the default. */
export function hiddenColumnsOf(cookie: string | undefined): RecordColumn[] {
  if (cookie === undefined) return [...RECORD_COLUMNS_HIDDEN];
  return cookie.split(',').filter((id): id is RecordColumn => (RECORD_COLUMNS as readonly string[]).includes(id));
}
