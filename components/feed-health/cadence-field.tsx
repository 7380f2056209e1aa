'use client';

import { useState } from 'react';
import { callApi } from '@/components/ui/call-api';

const PRESETS: [string, number | null][] = [
  ['None agreed', null],
  ['15 minutes', 900],
  ['1 hour', 3600],
  ['6 hours', 21_600],
  ['1 day', 86_400],
];

/** An admin's choice of the cadence agreed for a sport; saved at once (PUT /api/feed-health/cadences). */
export function CadenceField({ sport, seconds }: { sport: string; seconds: number | null }) {
  const [value, setValue] = useState(seconds);
  const [note, setNote] = useState('');
  const known = PRESETS.some(([, s]) => s === value);
  return (
    <span className="inline-flex items-center gap-1">
      <select
        aria-label={`Agreed cadence for ${sport}`}
        value={value === null ? '' : String(value)}
        className="rounded-md border border-slate-300 bg-white px-1 py-0.5 text-xs"
        onChange={async (event) => {
          const next = event.target.value === '' ? null : Number(event.target.value);
          setNote('Saving…');
          const answer = await callApi('/api/feed-health/cadences', {
            method: 'PUT',
            body: JSON.stringify({ cadences: { [sport]: next } }),
          });
          if (answer.ok) {
            setValue(next);
            setNote('Saved; judged from the next poll.');
          } else setNote(answer.problem.message);
        }}
      >
        {!known && <option value={String(value)}>{value} s</option>}
        {PRESETS.map(([label, s]) => (
          <option key={label} value={s === null ? '' : String(s)}>
            {label}
          </option>
        ))}
      </select>
      <span role="status" className="text-xs text-slate-600">
        {note}
      </span>
    </span>
  );
}
