import { z } from 'zod';

/**
 * Each person's display preferences: the time zone of every time shown, the theme, the records tables'
 * density. Kept with the person in the store (followed in every browser they sign in to) and, for the
 * pages to read without a store query, in cookies of this browser. Shared by server and browser code.
 */

export const PREFERENCE_COOKIES = { timeZone: 'tz', theme: 'theme', density: 'density' } as const;
/** Names the person whose preferences this browser's cookies hold (a keyed digest of their email, lib/preferences/server.ts). */
export const PREFERENCES_OF_COOKIE = 'prefs-of';
export const PREFERENCE_MAX_AGE = 31_536_000; // a year

const validZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

export const preferencesSchema = z.strictObject({
  /** An IANA zone (Europe/Berlin, UTC); null: the browser's own. */
  timeZone: z
    .string()
    .max(64, 'must be at most 64 characters')
    .refine(validZone, 'must be a time zone such as UTC or Europe/Berlin')
    .nullable()
    .optional(),
  theme: z.enum(['system', 'light', 'dark'], { error: 'must be system, light or dark' }).optional(),
  density: z.enum(['compact', 'comfortable'], { error: 'must be compact or comfortable' }).optional(),
});

export type Preferences = z.infer<typeof preferencesSchema>;

/** A stored JSON value as preferences: whatever does not fit the schema now (an older version's) is dropped, not fatal. */
export function readPreferences(json: string | null): Preferences {
  if (!json) return {};
  try {
    const parsed = preferencesSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
