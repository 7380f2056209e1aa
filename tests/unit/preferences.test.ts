import { describe, expect, it } from 'vitest';
import { preferencesSchema, readPreferences } from '@/lib/vocabulary/preferences-schema';

/** What a person's preferences may say: a real time zone, a theme, a density; nothing else. */

describe('preferences', () => {
  it('takes a real zone (or none: the browser’s), a theme and a density', () => {
    expect(preferencesSchema.parse({ timeZone: 'Europe/Berlin', theme: 'dark', density: 'comfortable' })).toEqual({
      timeZone: 'Europe/Berlin',
      theme: 'dark',
      density: 'comfortable',
    });
    expect(preferencesSchema.parse({ timeZone: null })).toEqual({ timeZone: null });
  });

  it('names every wrong field at once', () => {
    const parsed = preferencesSchema.safeParse({ timeZone: 'Mars/Olympus', theme: 'neon', density: 'tight', colour: 'red' });
    expect(parsed.success).toBe(false);
    const problems = Object.fromEntries(parsed.error!.issues.map((issue) => [issue.path.join('.') || issue.code, issue.message]));
    expect(problems).toMatchObject({
      timeZone: 'must be a time zone such as UTC or Europe/Berlin',
      theme: 'must be system, light or dark',
      density: 'must be compact or comfortable',
    });
    expect(JSON.stringify(parsed.error!.issues)).toContain('colour');
  });

  it('reads what the store holds, dropping what no longer fits', () => {
    expect(readPreferences(null)).toEqual({});
    expect(readPreferences('not json')).toEqual({});
    expect(readPreferences('{"theme":"light"}')).toEqual({ theme: 'light' });
    expect(readPreferences('{"theme":"neon"}')).toEqual({});
  });
});
