'use client';

import { RECORD_FORMATS, RECORD_FORMAT_LABELS } from '@/lib/vocabulary/formats';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem, type ProblemField } from '@/components/ui/call-api';
import { controlClass, Field, SelectField, TextField } from '@/components/ui/field';
import { CHANGE_KIND_ID, FilterFields, type FilterValues } from '@/components/deliveries/filter-fields';
import { ScheduleField } from '@/components/deliveries/schedule-field';
import type { Vocabulary } from '@/lib/deliveries/filter-rules';
import { cardClass } from '@/components/ui/card';
import { DESTINATIONS, DestinationFields, destinationOf, type DestinationType } from '@/components/deliveries/destination-fields';

/**
 * The form that creates a delivery, posting to POST /api/deliveries (the same API scripts use). Filters
 * are chosen from the licence and previewed as they change; the API's answer is shown as it came: every
 * field's problem under that field at once, or the new delivery. Secrets typed here are sent once and
 * never shown again.
 */

const KINDS = [
  { value: 'picks', label: 'picks' },
  { value: 'results', label: 'results' },
  { value: 'changes', label: 'changes since the last successful run' },
];

/**
 * The fields of the form in the order they appear, as the problem summary names them (each control's id is
 * `f-<name>`, but the kind of change, `f-change-kind`: the form's own `kind` is `f-kind`).
 */
const FIELDS: readonly ProblemField[] = (
  [
    ['name', 'Name'],
    ['kind', 'What'],
    ['format', 'Format'],
    ['filters.kind', 'Kind of change'],
    ['filters.sport', 'Sport'],
    ['filters.league', 'League'],
    ['filters.status', 'Status'],
    ['filters.result', 'Result'],
    ['filters.from', 'From'],
    ['filters.to', 'To'],
    ['filters.q', 'Search words'],
    ['filters.sort', 'Order'],
    ['schedule', 'Schedule'],
    ['destination.type', 'Destination'],
    ['destination.folder', 'Folder'],
    ['destination.host', 'Host'],
    ['destination.port', 'Port'],
    ['destination.username', 'Username'],
    ['destination.path', 'Remote folder'],
    ['destination.password', 'Password'],
    ['destination.privateKey', 'Private key'],
    ['destination.url', 'URL'],
    ['destination.secret', 'Signing secret'],
    ['destination.bucket', 'Bucket'],
    ['destination.region', 'Region'],
    ['destination.endpoint', 'Endpoint'],
    ['destination.prefix', 'Key prefix'],
    ['destination.accessKeyId', 'Access key id'],
    ['destination.secretAccessKey', 'Secret access key'],
    ['destination.connection', 'Connection string'],
    ['destination.schema', 'Schema'],
    ['destination.table', 'Table'],
    ['encryptTo', 'Encrypt to'],
  ] as const
).map(([key, label]) => ({ key, label, id: key === 'filters.kind' ? CHANGE_KIND_ID : `f-${key.split('.').pop()}` }));

/** What a new delivery's form starts from, and starts from again once one is saved. */
const START = {
  type: 'directory' as DestinationType,
  kind: 'picks',
  filters: { from: 'today-1d', to: 'today+1d' } as FilterValues,
  schedule: '0 6 * * *',
};

const fixed = (value: string | undefined) => (value && /^(today|now)/.test(value.trim()) ? '' : (value ?? ''));

export function DeliveryForm({ onCreated, vocabulary }: { onCreated: () => void; vocabulary: Vocabulary }) {
  const [type, setType] = useState<DestinationType>(START.type);
  const [kind, setKind] = useState(START.kind);
  const [filters, setFilters] = useState<FilterValues>(START.filters);
  const [schedule, setSchedule] = useState(START.schedule);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);
  const errors = problem?.details ?? {};

  // A table holds a fixed set: a moving window (today-1d) would drop and add rows that did not change.
  function chooseType(next: DestinationType) {
    setType(next);
    if (next === 'postgres') setFilters((f) => ({ ...f, from: fixed(f.from), to: fixed(f.to) }));
  }

  // onSubmit, not a form action: React resets a form after its action, and a refused form must keep what was typed.
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const allowed =
      kind === 'changes' ? ['kind', 'sport', 'league'] : ['sport', 'league', 'status', 'result', 'from', 'to', 'q', 'sort', 'dir'];
    const sent = Object.fromEntries(Object.entries(filters).filter(([key, value]) => allowed.includes(key) && value.trim() !== ''));
    const destination = destinationOf(type, form);
    const table = type === 'postgres';
    setPending(true);
    const answer = await callApi('/api/deliveries', {
      method: 'POST',
      body: JSON.stringify({
        name: text('name'),
        kind,
        // A table is written row by row; its manifest names the records as JSON Lines.
        format: table ? 'jsonl' : text('format'),
        schedule,
        filters: sent,
        destination,
        ...(!table && text('encryptTo') ? { encryptTo: text('encryptTo') } : {}),
        ...(!table && kind !== 'changes' && form.get('corrections') === 'on' ? { corrections: true } : {}),
      }),
    });
    setPending(false);
    if (!answer.ok) return setProblem(answer.problem);
    setProblem(null);
    // The next delivery starts clean: nothing of this one's filters, destination or schedule carried over.
    element.reset();
    setType(START.type);
    setKind(START.kind);
    setFilters(START.filters);
    setSchedule(START.schedule);
    onCreated();
  }

  return (
    <form onSubmit={(event) => void submit(event)} aria-label="New delivery" className={cardClass('space-y-3 p-4')} noValidate>
      <h2 id="new-delivery" className="font-semibold">
        New delivery
      </h2>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <TextField label="Name" name="name" required placeholder="Morning results" error={errors.name} />
        <SelectField label="What" name="kind" options={KINDS} value={kind} onChange={(e) => setKind(e.target.value)} error={errors.kind} />
        {type !== 'postgres' && (
          <SelectField
            label="Format"
            name="format"
            options={RECORD_FORMATS.map((value) => ({ value, label: RECORD_FORMAT_LABELS[value] }))}
            defaultValue="csv"
            error={errors.format}
          />
        )}
        <FilterFields kind={kind} vocabulary={vocabulary} values={filters} onChange={setFilters} errors={errors} />
        <ScheduleField value={schedule} onChange={setSchedule} error={errors.schedule} />
        <SelectField
          label="Destination"
          name="type"
          options={DESTINATIONS}
          value={type}
          onChange={(e) => chooseType(e.target.value as DestinationType)}
          error={errors['destination.type']}
        />
        <DestinationFields type={type} errors={errors} />
        {type !== 'postgres' && (
          <div className="sm:col-span-2 lg:col-span-4">
            <Field
              label={
                <>
                  Encrypt to (the recipient&apos;s OpenPGP public key, optional): files are placed as{' '}
                  <code className="normal-case">&lt;file&gt;.pgp</code>
                </>
              }
              htmlFor="f-encryptTo"
              error={errors.encryptTo}
            >
              <textarea
                id="f-encryptTo"
                name="encryptTo"
                rows={2}
                className={controlClass()}
                placeholder="-----BEGIN PGP PUBLIC KEY BLOCK-----"
              />
            </Field>
          </div>
        )}
        {kind !== 'changes' && type !== 'postgres' && (
          <label className="flex items-center gap-2 text-sm sm:col-span-2 lg:col-span-4">
            <input type="checkbox" name="corrections" />
            Send corrections: after each poll that changes records it delivered, place only those, in files called …-corrections-…
          </label>
        )}
      </div>
      <Problem problem={problem} fields={FIELDS} />
      <Button type="submit" tone="primary" disabled={pending}>
        {pending ? 'Saving…' : 'Create delivery'}
      </Button>
    </form>
  );
}
