'use client';

import { useEffect, useState } from 'react';
import { SelectField, TextField } from '@/components/ui/field';
import { leaguesFor, UNREAD_LICENCE_HINT, type Vocabulary } from '@/lib/sport-leagues';
import { CHANGE_KINDS } from '@/lib/vocabulary/changes';
import { PICK_RESULTS, PICK_STATUSES } from '@/lib/picks-api/vocabulary';
import { plural } from '@/lib/plural';
import { exampleDay } from '@/lib/time';
import { SORT_CHOICES } from '@/components/records/order-form';

/** The kind-of-change filter's control (the delivery form has a `kind` of its own: `f-kind`). */
export const CHANGE_KIND_ID = 'f-change-kind';

/**
 * A delivery's filters, chosen from what the licence grants (leagues narrowed by the chosen sport, as
 * the change feed has seen them), with a preview of how many records they match now: asked of
 * GET /api/deliveries/preview a moment after the last change, so an empty delivery shows before it is saved.
 */

export type FilterValues = Record<string, string>;

/** A file's order when it is not the API's: the whole set ordered from the portal's index (both ways). */
const ORDERS = SORT_CHOICES.filter((choice) => choice.value !== 'relevance').flatMap((choice) => [
  { value: `${choice.value} asc`, label: `${choice.label}, ascending` },
  { value: `${choice.value} desc`, label: `${choice.label}, descending` },
]);

interface Preview {
  state: 'idle' | 'counting' | 'done' | 'failed';
  text: string;
  /** The filters the preview found wrong, by field (`filters.from`): said beside each field, not in the preview. */
  problems?: Record<string, string>;
}

export function FilterFields({
  kind,
  vocabulary,
  values,
  onChange,
  errors: submitted,
}: {
  kind: string;
  vocabulary: Vocabulary;
  values: FilterValues;
  onChange: (values: FilterValues) => void;
  errors: Record<string, string>;
}) {
  const [preview, setPreview] = useState<Preview>({ state: 'idle', text: '' });
  // Each problem is said once, beside its field: what the last submit found, else what the preview found.
  const errors = { ...preview.problems, ...submitted };
  const set = (key: string, value: string) => {
    const next = { ...values, [key]: value };
    if (key === 'sport' && next.league && !(leaguesFor(vocabulary, value) ?? [next.league]).includes(next.league)) next.league = '';
    onChange(next);
  };
  const query = new URLSearchParams({ kind, ...Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== '')) }).toString();

  useEffect(() => {
    const abort = new AbortController();
    const timer = setTimeout(() => {
      setPreview({ state: 'counting', text: 'Counting the records these filters match now…' });
      fetch(`/api/deliveries/preview?${query}`, { signal: abort.signal })
        .then(async (res) => {
          const body = (await res.json()) as {
            records?: number;
            more?: boolean;
            counted?: string;
            error?: { message: string; details?: Record<string, string> };
          };
          const problems = body.error?.details;
          if (res.status === 400 && problems && Object.keys(problems).length > 0)
            return setPreview({ state: 'failed', text: 'No count until the filters marked above are put right.', problems });
          if (!res.ok) return setPreview({ state: 'failed', text: body.error?.message ?? `The preview failed (HTTP ${res.status}).` });
          const count = body.more ? `More than ${plural(body.records!, 'record')}` : plural(body.records!, 'record');
          setPreview({
            state: 'done',
            text:
              body.records === 0
                ? `No records match now: a run would deliver an empty file (${body.counted}).`
                : `${count}: ${body.counted}.`,
          });
        })
        .catch(() => {
          if (!abort.signal.aborted) setPreview({ state: 'failed', text: 'The preview could not be fetched.' });
        });
    }, 500);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [query]);

  /** A filter typed as text (dates; sports and leagues where nothing lists them). */
  const typed = (name: string, label: string, placeholder?: string, hint?: string) => (
    <TextField
      label={label}
      name={name}
      value={values[name] ?? ''}
      onChange={(e) => set(name, e.target.value)}
      placeholder={placeholder}
      hint={hint}
      error={errors[`filters.${name}`]}
    />
  );

  /** A filter whose values the API defines (statuses, results, kinds of change): always a choice. */
  const listed = (name: string, label: string, options: readonly string[], any: string, id?: string) => (
    <SelectField
      label={label}
      name={name}
      id={id}
      options={options}
      any={any}
      value={values[name] ?? ''}
      onChange={(e) => set(name, e.target.value)}
      error={errors[`filters.${name}`]}
    />
  );

  /** Sport and league: a choice where the licence (or the feed) lists them, text otherwise. */
  const choice = (name: 'sport' | 'league', label: string, options: string[] | null) =>
    options
      ? listed(name, label, options, `Any ${name}`)
      : typed(name, label, undefined, vocabulary.unread ? UNREAD_LICENCE_HINT : undefined);

  return (
    <>
      {choice('sport', 'Sport', vocabulary.sports)}
      {choice('league', 'League', leaguesFor(vocabulary, values.sport ?? ''))}
      {kind === 'changes' ? (
        listed('kind', 'Kind of change', CHANGE_KINDS, 'Any change', CHANGE_KIND_ID)
      ) : (
        <>
          {kind === 'picks' ? listed('status', 'Status', PICK_STATUSES, 'Any status') : null}
          {listed('result', 'Result', PICK_RESULTS, 'Any result')}
          {typed('from', 'From', `today-7d, or ${exampleDay(-7)}`, 'A UTC day, a timestamp, or relative to each run')}
          {typed('to', 'To', 'today+1d, now')}
          {typed('q', 'Search words', 'Kingston City', 'Only records holding these words, from the portal’s index')}
          <SelectField
            label="Order"
            name="sort"
            options={ORDERS}
            any="As the API lists them"
            value={values.sort ? `${values.sort} ${values.dir ?? 'desc'}` : ''}
            onChange={(e) => {
              const [sort = '', dir = ''] = e.target.value.split(' ');
              onChange({ ...values, sort, dir });
            }}
            error={errors['filters.sort'] ?? errors['filters.dir']}
          />
        </>
      )}
      <p
        role="status"
        aria-live="polite"
        data-testid="delivery-preview"
        data-state={preview.state}
        className={`text-sm sm:col-span-2 lg:col-span-4 ${preview.state === 'failed' || preview.text.startsWith('No records') ? 'text-amber-800' : 'text-slate-700'}`}
      >
        {preview.text}
      </p>
    </>
  );
}
