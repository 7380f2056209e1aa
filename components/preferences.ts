'use client';

import {
  hiddenColumnsOf,
  PREFERENCE_COOKIES,
  PREFERENCE_MAX_AGE,
  PREFERENCES_OF_COOKIE,
  type Preferences,
} from '@/lib/vocabulary/preferences';

/**
 * The browser's half of a person's preferences (lib/preferences): this browser's cookies, which the pages
 * read, and the store, which keeps them for every other browser the person signs in to.
 */

const read = (name: string) => {
  const raw = new RegExp(`(?:^|; )${name}=([^;]*)`).exec(document.cookie)?.[1];
  return raw ? decodeURIComponent(raw) : undefined;
};

function writeCookie(name: string, value: string | null | undefined) {
  document.cookie = value
    ? `${name}=${encodeURIComponent(value)}; path=/; max-age=${PREFERENCE_MAX_AGE}; samesite=lax`
    : `${name}=; path=/; max-age=0; samesite=lax`;
}

/** What this browser's cookies say now. */
export function browserPreferences(): Preferences {
  return {
    timeZone: read(PREFERENCE_COOKIES.timeZone) ?? null,
    theme: (read(PREFERENCE_COOKIES.theme) as Preferences['theme']) ?? 'system',
    density: (read(PREFERENCE_COOKIES.density) as Preferences['density']) ?? 'compact',
    nav: read(PREFERENCE_COOKIES.nav) === 'icons' ? 'icons' : 'full',
    hiddenColumns: hiddenColumnsOf(read(PREFERENCE_COOKIES.columns)),
  };
}

/** Applies a change in this browser at once and keeps it with the person (a failure to keep it loses only that). */
export async function savePreferences(change: Preferences): Promise<void> {
  if ('timeZone' in change) writeCookie(PREFERENCE_COOKIES.timeZone, change.timeZone);
  if (change.theme) writeCookie(PREFERENCE_COOKIES.theme, change.theme === 'system' ? null : change.theme);
  if (change.density) writeCookie(PREFERENCE_COOKIES.density, change.density === 'compact' ? null : change.density);
  if (change.nav) writeCookie(PREFERENCE_COOKIES.nav, change.nav === 'icons' ? 'icons' : null);
  if (change.hiddenColumns) writeCookie(PREFERENCE_COOKIES.columns, change.hiddenColumns.join(',') || 'none');
  await fetch('/api/preferences', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(change),
    keepalive: true,
  }).catch(() => undefined);
}

/**
 * After a sign-in (the root layout says the cookies are not this person's): the person's preferences from
 * the store replace this browser's, and the page reloads if that changes anything it shows. A browser that
 * never held anyone's (no PREFERENCES_OF_COOKIE) keeps what it had chosen where the person has not chosen.
 */
export async function syncPreferences(): Promise<void> {
  const before = browserPreferences();
  const fresh = read(PREFERENCES_OF_COOKIE) === undefined;
  const res = await fetch('/api/preferences', { cache: 'no-store' }).catch(() => null);
  if (!res?.ok) return;
  const { preferences } = (await res.json()) as { preferences: Preferences };
  if (fresh) {
    const adopt: Preferences = {};
    if (preferences.timeZone === undefined && before.timeZone) adopt.timeZone = before.timeZone;
    if (preferences.theme === undefined && before.theme !== 'system') adopt.theme = before.theme;
    if (preferences.density === undefined && before.density !== 'compact') adopt.density = before.density;
    if (preferences.nav === undefined && before.nav === 'icons') adopt.nav = 'icons';
    if (preferences.hiddenColumns === undefined && read(PREFERENCE_COOKIES.columns) !== undefined)
      adopt.hiddenColumns = before.hiddenColumns;
    if (Object.keys(adopt).length > 0) return savePreferences(adopt);
  }
  const after = browserPreferences();
  if (JSON.stringify(after) !== JSON.stringify(before)) window.location.reload();
}
