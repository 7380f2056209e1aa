'use client';

import { useEffect, useState } from 'react';

const PARTS = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } as const;
const utcFormat = new Intl.DateTimeFormat('en-GB', { ...PARTS, timeZone: 'UTC' });

/** A UTC instant shown in the viewer's local time with the zone named; the UTC value is in the tooltip. */
export function LocalTime({ iso }: { iso: string | null | undefined }) {
  const [local, setLocal] = useState<string | null>(null);
  const date = iso ? new Date(iso) : null;
  const valid = date !== null && !Number.isNaN(date.getTime());
  useEffect(() => {
    if (!valid) return;
    setLocal(new Intl.DateTimeFormat(undefined, { ...PARTS, timeZoneName: 'short' }).format(date));
  }, [iso, valid]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!iso) return <span className="text-slate-500">—</span>;
  if (!valid) return <span>{iso}</span>;
  const utc = `${utcFormat.format(date)} UTC`;
  return (
    <time dateTime={date.toISOString()} title={utc} className="whitespace-nowrap">
      {local ?? utc}
    </time>
  );
}
