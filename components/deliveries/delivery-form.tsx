'use client';

import { RECORD_FORMATS, RECORD_FORMAT_LABELS } from '@/lib/vocabulary/formats';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem, type ProblemField } from '@/components/ui/call-api';
import { controlClass, Field, SelectField, TextField } from '@/components/ui/field';
import { FilterFields, type FilterValues } from '@/components/deliveries/filter-fields';
import { ScheduleField } from '@/components/deliveries/schedule-field';
import type { Vocabulary } from '@/lib/deliveries/filter-rules';
import { cardClass } from '@/components/ui/card';

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
const DESTINATIONS = [
  { value: 'directory', label: 'folder on the server' },
  { value: 'sftp', label: 'SFTP' },
  { value: 'webhook', label: 'webhook' },
  { value: 's3', label: 'S3-compatible bucket' },
];

/** The fields of the form in the order they appear, as the problem summary names them (each control's id is `f-<name>`). */
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
    ['encryptTo', 'Encrypt to'],
  ] as const
).map(([key, label]) => ({ key, label, id: `f-${key.split('.').pop()}` }));

/** What a new delivery's form starts from, and starts from again once one is saved. */
const START = {
  type: 'directory' as 'directory' | 'sftp' | 'webhook' | 's3',
  kind: 'picks',
  filters: { from: 'today-1d', to: 'today+1d' } as FilterValues,
  schedule: '0 6 * * *',
};

export function DeliveryForm({ onCreated, vocabulary }: { onCreated: () => void; vocabulary: Vocabulary }) {
  const [type, setType] = useState<'directory' | 'sftp' | 'webhook' | 's3'>(START.type);
  const [kind, setKind] = useState(START.kind);
  const [filters, setFilters] = useState<FilterValues>(START.filters);
  const [schedule, setSchedule] = useState(START.schedule);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);
  const errors = problem?.details ?? {};

  // onSubmit, not a form action: React resets a form after its action, and a refused form must keep what was typed.
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const allowed = kind === 'changes' ? ['kind', 'sport', 'league'] : ['sport', 'league', 'status', 'result', 'from', 'to'];
    const sent = Object.fromEntries(Object.entries(filters).filter(([key, value]) => allowed.includes(key) && value.trim() !== ''));
    const destination =
      type === 'directory'
        ? { type, folder: text('folder') }
        : type === 'sftp'
          ? {
              type,
              host: text('host'),
              port: Number(text('port') || 22),
              username: text('username'),
              path: text('path') || '.',
              ...(text('privateKey') ? { privateKey: String(form.get('privateKey')) } : { password: String(form.get('password') ?? '') }),
            }
          : type === 's3'
            ? {
                type,
                bucket: text('bucket'),
                region: text('region') || 'us-east-1',
                ...(text('endpoint') ? { endpoint: text('endpoint') } : {}),
                prefix: text('prefix'),
                accessKeyId: text('accessKeyId'),
                secretAccessKey: String(form.get('secretAccessKey') ?? ''),
              }
            : { type, url: text('url'), secret: String(form.get('secret') ?? '') };
    setPending(true);
    const answer = await callApi('/api/deliveries', {
      method: 'POST',
      body: JSON.stringify({
        name: text('name'),
        kind,
        format: text('format'),
        schedule,
        filters: sent,
        destination,
        ...(text('encryptTo') ? { encryptTo: text('encryptTo') } : {}),
        ...(kind !== 'changes' && form.get('corrections') === 'on' ? { corrections: true } : {}),
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
      <h2 className="font-semibold">New delivery</h2>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <TextField label="Name" name="name" required placeholder="Morning results" error={errors.name} />
        <SelectField label="What" name="kind" options={KINDS} value={kind} onChange={(e) => setKind(e.target.value)} error={errors.kind} />
        <SelectField
          label="Format"
          name="format"
          options={RECORD_FORMATS.map((value) => ({ value, label: RECORD_FORMAT_LABELS[value] }))}
          defaultValue="csv"
          error={errors.format}
        />
        <FilterFields kind={kind} vocabulary={vocabulary} values={filters} onChange={setFilters} errors={errors} />
        <ScheduleField value={schedule} onChange={setSchedule} error={errors.schedule} />
        <SelectField
          label="Destination"
          name="type"
          options={DESTINATIONS}
          value={type}
          onChange={(e) => setType(e.target.value as typeof type)}
          error={errors['destination.type']}
        />
        {type === 'directory' && (
          <TextField
            label="Folder (under the delivery root)"
            name="folder"
            placeholder="partner/daily"
            error={errors['destination.folder']}
          />
        )}
        {type === 'sftp' && (
          <>
            <TextField label="Host" name="host" required error={errors['destination.host']} />
            <TextField label="Port" name="port" placeholder="22" inputMode="numeric" error={errors['destination.port']} />
            <TextField label="Username" name="username" required error={errors['destination.username']} />
            <TextField label="Remote folder" name="path" placeholder="incoming" error={errors['destination.path']} />
            <TextField
              label="Password"
              name="password"
              type="password"
              autoComplete="new-password"
              error={errors['destination.password']}
            />
            <div className="sm:col-span-2">
              <Field label="Or a private key (OpenSSH)" htmlFor="f-privateKey" error={errors['destination.privateKey']}>
                <textarea id="f-privateKey" name="privateKey" rows={2} className={controlClass()} />
              </Field>
            </div>
          </>
        )}
        {type === 'webhook' && (
          <>
            <div className="sm:col-span-2">
              <TextField label="URL (https)" name="url" required type="url" error={errors['destination.url']} />
            </div>
            <TextField
              label="Signing secret (16+ characters)"
              name="secret"
              required
              type="password"
              autoComplete="new-password"
              error={errors['destination.secret']}
            />
          </>
        )}
        {type === 's3' && (
          <>
            <TextField label="Bucket" name="bucket" required error={errors['destination.bucket']} />
            <TextField label="Region" name="region" placeholder="us-east-1" error={errors['destination.region']} />
            <div className="sm:col-span-2">
              <TextField
                label="Endpoint (empty for AWS; MinIO, R2 …: its https URL)"
                name="endpoint"
                type="url"
                error={errors['destination.endpoint']}
              />
            </div>
            <TextField
              label="Key prefix (files go under <prefix>/dt=<day>/)"
              name="prefix"
              placeholder="picks/daily"
              error={errors['destination.prefix']}
            />
            <TextField label="Access key id" name="accessKeyId" required autoComplete="off" error={errors['destination.accessKeyId']} />
            <TextField
              label="Secret access key"
              name="secretAccessKey"
              required
              type="password"
              autoComplete="new-password"
              error={errors['destination.secretAccessKey']}
            />
          </>
        )}
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
        {kind !== 'changes' && (
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
