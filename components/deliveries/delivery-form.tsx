'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { controlClass, Field, SelectField, TextField } from '@/components/ui/field';

/**
 * The form that creates a delivery, posting to POST /api/deliveries (the same API scripts use). The
 * API's answer is shown as it came: each field's problem by name, or the new delivery. Secrets typed here
 * are sent once and never shown again.
 */

const FILTERS = ['sport', 'league', 'status', 'result', 'from', 'to'] as const;

const KINDS = [
  { value: 'picks', label: 'picks' },
  { value: 'results', label: 'results' },
  { value: 'changes', label: 'changes since the last successful run' },
];
const DESTINATIONS = [
  { value: 'directory', label: 'folder on the server' },
  { value: 'sftp', label: 'SFTP' },
  { value: 'webhook', label: 'webhook' },
];

export interface ApiProblem {
  message: string;
  details?: Record<string, string>;
}

export async function callApi(
  url: string,
  init: RequestInit = {},
): Promise<{ ok: true; body: unknown } | { ok: false; problem: ApiProblem }> {
  try {
    const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
    const body: unknown = res.status === 204 ? null : await res.json();
    if (res.ok) return { ok: true, body };
    const error = (body as { error?: ApiProblem } | null)?.error;
    return { ok: false, problem: { message: error?.message ?? `HTTP ${res.status}`, details: error?.details } };
  } catch {
    return { ok: false, problem: { message: 'The portal could not be reached. Try again.' } };
  }
}

export function Problem({ problem }: { problem: ApiProblem | null }) {
  if (!problem) return null;
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid="delivery-problem">
      {problem.message}
    </div>
  );
}

export function DeliveryForm({ onCreated }: { onCreated: () => void }) {
  const [type, setType] = useState<'directory' | 'sftp' | 'webhook'>('directory');
  const [kind, setKind] = useState('picks');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);

  // onSubmit, not a form action: React resets a form after its action, and a refused form must keep what was typed.
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const filters = Object.fromEntries(FILTERS.map((key) => [key, text(key)]).filter(([, value]) => value !== ''));
    if (kind === 'changes') for (const key of ['status', 'result', 'from', 'to']) delete filters[key];
    if (kind === 'changes' && text('changeKind')) filters.kind = text('changeKind');
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
          : { type, url: text('url'), secret: String(form.get('secret') ?? '') };
    setPending(true);
    const answer = await callApi('/api/deliveries', {
      method: 'POST',
      body: JSON.stringify({ name: text('name'), kind, format: text('format'), schedule: text('schedule'), filters, destination }),
    });
    setPending(false);
    if (!answer.ok) return setProblem(answer.problem);
    setProblem(null);
    element.reset();
    onCreated();
  }

  return (
    <form
      onSubmit={(event) => void submit(event)}
      aria-label="New delivery"
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <h2 className="font-semibold">New delivery</h2>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <TextField label="Name" name="name" required placeholder="Morning results" />
        <SelectField label="What" name="kind" options={KINDS} value={kind} onChange={(e) => setKind(e.target.value)} />
        <SelectField label="Format" name="format" options={['csv', 'json']} defaultValue="csv" />
        <TextField label="Schedule (cron, UTC)" name="schedule" required placeholder="0 6 * * *" />
        <TextField label="Sport" name="sport" />
        <TextField label="League" name="league" />
        {kind === 'changes' ? (
          <TextField label="Kind of change" name="changeKind" placeholder="any, or e.g. result" />
        ) : (
          <>
            <TextField label="Status" name="status" />
            <TextField label="Result" name="result" />
            <TextField label="From (UTC)" name="from" placeholder="today-7d, or 2026-11-01" />
            <TextField label="To (UTC)" name="to" placeholder="today, now, today+1d" />
          </>
        )}
        <SelectField
          label="Destination"
          name="type"
          options={DESTINATIONS}
          value={type}
          onChange={(e) => setType(e.target.value as typeof type)}
        />
        {type === 'directory' && <TextField label="Folder (under the delivery root)" name="folder" placeholder="partner/daily" />}
        {type === 'sftp' && (
          <>
            <TextField label="Host" name="host" required />
            <TextField label="Port" name="port" placeholder="22" inputMode="numeric" />
            <TextField label="Username" name="username" required />
            <TextField label="Remote folder" name="path" placeholder="incoming" />
            <TextField label="Password" name="password" type="password" autoComplete="new-password" />
            <div className="sm:col-span-2">
              <Field label="Or a private key (OpenSSH)" htmlFor="f-privateKey">
                <textarea id="f-privateKey" name="privateKey" rows={2} className={controlClass()} />
              </Field>
            </div>
          </>
        )}
        {type === 'webhook' && (
          <>
            <div className="sm:col-span-2">
              <TextField label="URL (https)" name="url" required type="url" />
            </div>
            <TextField label="Signing secret (16+ characters)" name="secret" required type="password" autoComplete="new-password" />
          </>
        )}
      </div>
      <Problem problem={problem} />
      <Button type="submit" tone="primary" disabled={pending}>
        {pending ? 'Saving…' : 'Create delivery'}
      </Button>
    </form>
  );
}
