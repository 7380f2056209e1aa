import { describe, expect, it } from 'vitest';
import { preferencesSchema, readPreferences } from '@/lib/vocabulary/preferences-schema';
import { hiddenColumnsOf, RECORD_COLUMNS_HIDDEN } from '@/lib/vocabulary/preferences';

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

  it('takes the navigation as names or icons, and the records columns to hide, by name', () => {
    expect(preferencesSchema.parse({ nav: 'icons', hiddenColumns: ['bookmaker', 'line'] })).toEqual({
      nav: 'icons',
      hiddenColumns: ['bookmaker', 'line'],
    });
    const parsed = preferencesSchema.safeParse({ nav: 'tiny', hiddenColumns: ['event', 'bookmaker'] });
    const problems = Object.fromEntries(parsed.error!.issues.map((issue) => [issue.path.join('.'), issue.message]));
    expect(problems).toEqual({
      nav: 'must be full or icons',
      'hiddenColumns.0': expect.stringMatching(/^must each be one of eventDate, /),
    });
  });

  it('reads the hidden columns from their cookie: none is the default set, "none" shows every column', () => {
    expect(hiddenColumnsOf(undefined)).toEqual(RECORD_COLUMNS_HIDDEN);
    expect(hiddenColumnsOf('none')).toEqual([]);
    expect(hiddenColumnsOf('line,<script>,odds')).toEqual(['line', 'odds']);
  });

  it('reads what the store holds, dropping what no longer fits', () => {
    expect(readPreferences(null)).toEqual({});
    expect(readPreferences('not json')).toEqual({});
    expect(readPreferences('{"theme":"light"}')).toEqual({ theme: 'light' });
    expect(readPreferences('{"theme":"neon"}')).toEqual({});
  });
});
