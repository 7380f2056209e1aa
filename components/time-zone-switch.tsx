'use client';

import { useSyncExternalStore } from 'react';
import { chosenTimeZone } from '@/components/after-load';
import { savePreferences } from '@/components/preferences';

/**
 * The time zone every page shows times in: this browser's (the default), UTC one choice away, or any other.
 * Kept with the person and in this browser's `tz` cookie (components/preferences.ts); <AfterLoad> reads it.
 * The page reloads so every time on it follows.
 */

const COMMON = [
  'UTC',
  'Europe/London',
  'Europe/Berlin',
  'America/New_York',
  'America/Chicago',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Sydney',
];

/** The chosen zone as the select's value: '' for the browser's own. */
const chosen = () => chosenTimeZone() ?? '';
const subscribe = () => () => undefined;
const NONE: string[] = [];
let zones: string[] | undefined;
/** Every zone the browser knows (about 400): listed in the browser only, so no page's HTML carries them. */
const allZones = () => (zones ??= typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : NONE);

export function TimeZoneSwitch() {
  const value = useSyncExternalStore(subscribe, chosen, () => '');
  const browser = useSyncExternalStore(
    subscribe,
    () => Intl.DateTimeFormat().resolvedOptions().timeZone,
    () => '',
  );
  const others = useSyncExternalStore(subscribe, allZones, () => NONE);
  return (
    <select
      aria-label="Time zone"
      value={value}
      onChange={(event) => {
        void savePreferences({ timeZone: event.target.value || null }).then(() => window.location.reload());
      }}
      className="w-full rounded-md border border-slate-300 bg-white px-1.5 py-1 text-xs text-slate-700"
    >
      <option value="">Browser time{browser ? ` (${browser})` : ''}</option>
      <optgroup label="Common">
        {COMMON.map((zone) => (
          <option key={zone} value={zone}>
            {zone}
          </option>
        ))}
      </optgroup>
      <optgroup label="All zones">
        {others
          .filter((zone) => !COMMON.includes(zone))
          .map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
      </optgroup>
    </select>
  );
}
