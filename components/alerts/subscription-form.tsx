'use client';

import { useState } from 'react';
import { callApi } from '@/components/ui/call-api';
import { Button } from '@/components/ui/button';
import { cardClass } from '@/components/ui/card';
import { labelClass } from '@/components/ui/field';

/** The signed-in person's choice of alert emails (PUT /api/alerts/subscription). */
export function SubscriptionForm({
  available,
  kinds,
  delivery,
  chosen,
  mailing,
}: {
  available: { kind: string; label: string }[];
  kinds: string[];
  delivery: 'each' | 'digest';
  chosen: boolean;
  /** An SMTP server is set: without one, alerts are only logged. */
  mailing: boolean;
}) {
  const [picked, setPicked] = useState(new Set(kinds));
  const [how, setHow] = useState(delivery);
  const [note, setNote] = useState(chosen ? '' : 'Your role’s default until you choose.');
  return (
    <form
      className={cardClass('p-4 text-sm')}
      aria-labelledby="my-alerts"
      onSubmit={async (event) => {
        event.preventDefault();
        setNote('Saving…');
        const answer = await callApi('/api/alerts/subscription', {
          method: 'PUT',
          body: JSON.stringify({ kinds: [...picked], delivery: how }),
        });
        setNote(answer.ok ? 'Saved.' : answer.problem.message);
      }}
    >
      <h2 id="my-alerts" className="font-semibold">
        Alert emails for me
      </h2>
      {!mailing && (
        <p className="mt-1 text-xs text-slate-600">No SMTP server is set on this portal: alerts are kept in its log, not mailed.</p>
      )}
      <fieldset className="mt-2 flex flex-wrap gap-x-5 gap-y-1">
        <legend className="sr-only">Alert kinds to receive by email</legend>
        {available.map(({ kind, label }) => (
          <label key={kind} className="flex items-center gap-1.5">
            <input
              type="checkbox"
              name="kinds"
              value={kind}
              checked={picked.has(kind)}
              onChange={(e) => {
                const next = new Set(picked);
                if (e.target.checked) next.add(kind);
                else next.delete(kind);
                setPicked(next);
              }}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <fieldset className="mt-3 flex flex-wrap gap-x-5 gap-y-1">
        <legend className={labelClass()}>When</legend>
        {(
          [
            ['each', 'Each alert as it happens'],
            ['digest', 'One daily digest instead'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="flex items-center gap-1.5">
            <input type="radio" name="delivery" value={value} checked={how === value} onChange={() => setHow(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <div className="mt-3 flex items-center gap-3">
        <Button type="submit" size="sm">
          Save
        </Button>
        <span role="status" className="text-xs text-slate-600" data-testid="subscription-note">
          {note}
        </span>
      </div>
    </form>
  );
}
