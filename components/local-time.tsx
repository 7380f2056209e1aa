'use client';

import { useSyncExternalStore } from 'react';

const PARTS = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } as const;
const utcFormat = new Intl.DateTimeFormat('en-GB', { ...PARTS, timeZone: 'UTC' });
const noSubscription = () => () => {};

/** A UTC instant shown in the viewer's local time with the zone named; the UTC value is in the tooltip. */
export function LocalTime({ iso }: { iso: string | null | undefined }) {
  const date = iso ? new Date(iso) : null;
  const valid = date !== null && !Number.isNaN(date.getTime());
  // The server knows no viewer's zone: it renders UTC, and the browser switches to local time after hydration.
  const local = useSyncExternalStore(
    noSubscription,
    () => (valid ? new Intl.DateTimeFormat(undefined, { ...PARTS, timeZoneName: 'short' }).format(date) : null),
    () => null,
  );
  if (!iso) return <span className="text-slate-500">—</span>;
  if (!valid) return <span>{iso}</span>;
  const utc = `${utcFormat.format(date)} UTC`;
  return (
    <time dateTime={date.toISOString()} title={utc} className="whitespace-nowrap">
      {local ?? utc}
    </time>
  );
}
