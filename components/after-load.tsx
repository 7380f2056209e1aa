'use client';

import { useEffect } from 'react';
import { formatUtc } from '@/components/utc-time';
import { syncPreferences } from '@/components/preferences';

/** How the portal writes a moment: short month, day, year, 24-hour time, the zone named. */
export const TIME_PARTS = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
} as const;

/** The zone the person chose (the `tz` cookie, components/time-zone-switch.tsx), or this browser's. */
export function chosenTimeZone(): string | undefined {
  const chosen = /(?:^|; )tz=([^;]+)/.exec(document.cookie)?.[1];
  if (!chosen) return undefined;
  try {
    const zone = decodeURIComponent(chosen);
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

/**
 * What the browser does to the server's markup once scripts run, for the whole page and for whatever
 * navigation brings in later: <time datetime> in the person's chosen zone (else the browser's), named, and logos that failed to load hidden
 * so their initials show. One component per page instead of a client component per cell.
 */
export function AfterLoad({ syncPreferences: sync = false }: { syncPreferences?: boolean }) {
  useEffect(() => {
    if (sync) void syncPreferences();
  }, [sync]);
  useEffect(() => {
    // The year is said only when it is not this one: times stay short in the tables.
    const zone = chosenTimeZone();
    const withYear = new Intl.DateTimeFormat(undefined, { ...TIME_PARTS, timeZone: zone });
    const { year: _year, ...thisYearParts } = TIME_PARTS;
    const thisYear = new Intl.DateTimeFormat(undefined, { ...thisYearParts, timeZone: zone });
    const currentYear = withYear.formatToParts(new Date()).find((part) => part.type === 'year')?.value;
    const local = {
      format: (date: Date) =>
        withYear.formatToParts(date).find((part) => part.type === 'year')?.value === currentYear
          ? thisYear.format(date)
          : withYear.format(date),
    };
    const done = new WeakSet<Element>();
    const localise = (time: HTMLTimeElement) => {
      if (done.has(time) || time.hasAttribute('data-day')) return;
      done.add(time);
      const date = new Date(time.dateTime);
      if (Number.isNaN(date.getTime())) return;
      time.textContent = local.format(date);
      time.title = formatUtc(date);
    };
    const hideIfBroken = (img: HTMLImageElement) => {
      if (img.complete && img.naturalWidth === 0) img.hidden = true;
    };
    // An element and what it holds: the whole page once, then only what each change adds (a 200-row table
    // sorted in place would otherwise have the whole document searched on every move).
    const touch = (root: Element | Document) => {
      if (root instanceof HTMLTimeElement && root.hasAttribute('datetime')) localise(root);
      if (root instanceof HTMLImageElement && root.hasAttribute('data-logo')) hideIfBroken(root);
      root.querySelectorAll<HTMLTimeElement>('time[datetime]').forEach(localise);
      root.querySelectorAll<HTMLImageElement>('img[data-logo]').forEach(hideIfBroken);
    };
    const hideBroken = (event: Event) => {
      if (event.target instanceof HTMLImageElement && event.target.hasAttribute('data-logo')) event.target.hidden = true;
    };
    touch(document);
    // Said on <html> once this has run (so React has hydrated the page): what a test or a screenshot waits for,
    // where "no request for 500 ms" never comes on a page that refreshes itself every 2 s (<RefreshWhile>).
    document.documentElement.dataset.ready = '';
    const observer = new MutationObserver((changes) => {
      for (const change of changes) for (const node of change.addedNodes) if (node instanceof Element) touch(node);
    });
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener('error', hideBroken, true); // error events do not bubble: listen while capturing
    // A filter form sends only the filters that are set: no `result=&from=&to=` in the address to share.
    const dropEmpty = (event: SubmitEvent) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || form.method !== 'get' || form.getAttribute('role') !== 'search') return;
      for (const field of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[name], select[name]'))
        if (field.value === '' && !field.disabled) {
          field.disabled = true;
          setTimeout(() => (field.disabled = false));
        }
    };
    document.addEventListener('submit', dropEmpty);
    // A records cell cut short (one line, or the two of a market or selection) shows its whole text on hover: said
    // when the pointer comes, not in every row's markup.
    const wholeOnHover = (event: PointerEvent) => {
      const cell = event.target instanceof Element ? event.target.closest('[data-records] td') : null;
      if (!cell || cell.hasAttribute('title')) return;
      const cut = [cell, ...cell.querySelectorAll('.two, b')].some(
        (el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
      );
      if (cut) cell.setAttribute('title', cell.textContent?.trim() ?? '');
    };
    document.addEventListener('pointerover', wholeOnHover);
    return () => {
      observer.disconnect();
      document.removeEventListener('error', hideBroken, true);
      document.removeEventListener('submit', dropEmpty);
      document.removeEventListener('pointerover', wholeOnHover);
    };
  }, []);
  return null;
}
