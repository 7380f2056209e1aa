'use client';

import { useState, useSyncExternalStore } from 'react';

const noChange = () => () => undefined;
import { Field, controlClass, invalid } from '@/components/ui/field';
import { chosenTimeZone, TIME_PARTS } from '@/components/after-load';
import { checkSchedule, describeSchedule, nextRuns } from '@/lib/deliveries/schedule';

/**
 * The schedule: presets for what people usually want (hourly, daily, weekdays, weekly, at a time) that
 * write the cron expression, or the expression typed by hand; the schedule in words and its next runs
 * shown as it is typed, in UTC (how it runs) and in the person's time zone.
 */

const PRESETS = [
  { id: 'hourly', label: 'Every hour', cron: () => '0 * * * *' },
  { id: 'daily', label: 'Every day at…', cron: (h: number, m: number) => `${m} ${h} * * *` },
  { id: 'weekdays', label: 'Weekdays at…', cron: (h: number, m: number) => `${m} ${h} * * 1-5` },
  { id: 'monday', label: 'Mondays at…', cron: (h: number, m: number) => `${m} ${h} * * 1` },
  { id: 'custom', label: 'Custom (cron)', cron: null },
] as const;

const local = (iso: string, timeZone: string) =>
  new Date(iso).toLocaleString(undefined, { ...TIME_PARTS, year: undefined, weekday: 'short', timeZone });

export function ScheduleField({ value, onChange, error }: { value: string; onChange: (cron: string) => void; error?: string }) {
  // The person's zone is known in the browser only: the server's render says UTC, the browser's its zone.
  const zone = useSyncExternalStore(
    noChange,
    () => chosenTimeZone() ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    () => 'UTC',
  );
  const [preset, setPreset] = useState<(typeof PRESETS)[number]['id']>('daily');
  const [time, setTime] = useState('06:00');
  const apply = (id: (typeof PRESETS)[number]['id'], at = time) => {
    setPreset(id);
    const chosen = PRESETS.find((p) => p.id === id)!;
    if (!chosen.cron) return;
    const [h, m] = at.split(':').map(Number);
    onChange(chosen.cron(h ?? 6, m ?? 0));
  };
  const problem = value.trim() ? checkSchedule(value) : null;
  const upcoming = value.trim() && !problem ? nextRuns(value, 3) : [];
  return (
    <div className="sm:col-span-2">
      <Field label="Schedule (runs in UTC)" htmlFor="f-schedule" error={error}>
        <div className="mt-1 flex flex-wrap gap-2">
          <select
            aria-label="Schedule preset"
            value={preset}
            onChange={(e) => apply(e.target.value as typeof preset)}
            className={controlClass(true)}
          >
            {PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
          {preset !== 'hourly' && preset !== 'custom' ? (
            <input
              type="time"
              aria-label="At (UTC)"
              value={time}
              onChange={(e) => {
                setTime(e.target.value);
                apply(preset, e.target.value);
              }}
              className={controlClass(true)}
            />
          ) : null}
          <input
            id="f-schedule"
            name="schedule"
            required
            value={value}
            onChange={(e) => {
              setPreset('custom');
              onChange(e.target.value);
            }}
            placeholder="0 6 * * *"
            className={`${controlClass(true)} font-mono`}
            {...invalid('f-schedule', error)}
          />
        </div>
      </Field>
      <p className="mt-1 text-xs text-slate-600" data-testid="schedule-preview">
        {problem
          ? `The schedule ${problem}.`
          : upcoming.length
            ? `${describeSchedule(value)}. Next: ${upcoming.map((iso) => `${iso.slice(5, 16).replace('T', ' ')} UTC (${local(iso, zone)})`).join(' · ')}`
            : null}
      </p>
    </div>
  );
}
