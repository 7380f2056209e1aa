import { z } from 'zod';
import { RECORD_COLUMNS, type Preferences } from './preferences';

/** What a person's preferences may say (server side: the API's input and the store's JSON). */

const validZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

export const preferencesSchema: z.ZodType<Preferences> = z.strictObject({
  /** An IANA zone (Europe/Berlin, UTC); null: the browser's own. */
  timeZone: z
    .string()
    .max(64, 'must be at most 64 characters')
    .refine(validZone, 'must be a time zone such as UTC or Europe/Berlin')
    .nullable()
    .optional(),
  theme: z.enum(['system', 'light', 'dark'], { error: 'must be system, light or dark' }).optional(),
  density: z.enum(['compact', 'comfortable'], { error: 'must be compact or comfortable' }).optional(),
  nav: z.enum(['full', 'icons'], { error: 'must be full or icons' }).optional(),
  hiddenColumns: z
    .array(z.enum(RECORD_COLUMNS, { error: `must each be one of ${RECORD_COLUMNS.join(', ')}` }))
    .max(RECORD_COLUMNS.length)
    .optional(),
});

/** What GET and PUT /api/preferences answer: the person's preferences now (lib/preferences/server.ts). */
export const preferencesAnswerSchema = z.strictObject({ preferences: preferencesSchema }).meta({ id: 'Preferences' });

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
