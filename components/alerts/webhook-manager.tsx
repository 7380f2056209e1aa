'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { SelectField, TextField, labelClass } from '@/components/ui/field';
import { cardClass } from '@/components/ui/card';

/**
 * The shared webhooks alerts go to (admins): listed with their kinds, added or changed through
 * /api/alerts/webhooks (every wrong field named at once under it), removed. The URL and the secret are
 * sent once and never shown again: leaving them empty when changing a webhook keeps them.
 */

export interface WebhookRow {
  id: string;
  name: string;
  url: string;
  format: 'signed' | 'chat' | 'email';
  kinds: string[];
  signed: boolean;
}

const FORMATS = [
  { value: 'signed', label: 'the portal’s signed JSON' },
  { value: 'chat', label: 'a chat tool’s incoming webhook ({"text"})' },
  { value: 'email', label: 'email to a shared address' },
];

export function WebhookManager({ webhooks, available }: { webhooks: WebhookRow[]; available: { kind: string; label: string }[] }) {
  const router = useRouter();
  const [editing, setEditing] = useState<WebhookRow | null>(null);
  const [kinds, setKinds] = useState(new Set<string>());
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [note, setNote] = useState('');
  const errors = problem?.details ?? {};
  const edit = (row: WebhookRow | null) => {
    setEditing(row);
    setKinds(new Set(row?.kinds ?? []));
    setProblem(null);
  };
  return (
    <section aria-labelledby="webhooks" className={cardClass('space-y-3 p-4 text-sm')}>
      <h2 id="webhooks" className="font-semibold">
        Shared webhooks and addresses
      </h2>
      {webhooks.length === 0 ? (
        <p className="text-slate-600">None: alerts go only to the people who chose them.</p>
      ) : (
        <ul className="space-y-1" data-testid="webhook-list">
          {webhooks.map((hook) => (
            <li key={hook.id} className="flex flex-wrap items-center gap-2" data-webhook={hook.name}>
              <span className="font-medium">{hook.name}</span>
              <span className="font-mono text-xs text-slate-600">{hook.url}</span>
              <span className="text-xs text-slate-600">
                {hook.format === 'chat' ? 'chat' : hook.format === 'email' ? 'email' : 'signed JSON'}
                {hook.signed ? ', signed' : ''}: {hook.kinds.join(', ')}
              </span>
              <Button size="sm" tone="secondary" onClick={() => edit(hook)}>
                Change
              </Button>
              <Button
                size="sm"
                tone="remove"
                onClick={async () => {
                  const answer = await callApi(`/api/alerts/webhooks/${hook.id}`, { method: 'DELETE' });
                  setNote(answer.ok ? `Removed ${hook.name}.` : answer.problem.message);
                  if (answer.ok) router.refresh();
                }}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form
        key={editing?.id ?? 'new'}
        aria-label={editing ? `Change the webhook ${editing.name}` : 'Add a webhook'}
        className="grid gap-3 md:grid-cols-2"
        onSubmit={async (event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const body: Record<string, unknown> = { name: data.get('name'), format: data.get('format'), kinds: [...kinds] };
          // One field takes the URL, or for email the address.
          const target = data.get('format') === 'email' ? 'address' : 'url';
          if (data.get('url') || !editing) body[target] = data.get('url') || undefined;
          if (data.get('secret')) body.secret = data.get('secret');
          const answer = await callApi(editing ? `/api/alerts/webhooks/${editing.id}` : '/api/alerts/webhooks', {
            method: editing ? 'PATCH' : 'POST',
            body: JSON.stringify(body),
          });
          if (!answer.ok) return setProblem(answer.problem);
          setNote(editing ? 'Saved.' : 'Added.');
          edit(null);
          router.refresh();
        }}
      >
        <h3 className="font-medium md:col-span-2">{editing ? `Change ${editing.name}` : 'Add a webhook'}</h3>
        <TextField label="Name" name="name" defaultValue={editing?.name} required error={errors.name} id="wh-name" />
        <SelectField
          label="Payload"
          name="format"
          options={FORMATS}
          defaultValue={editing?.format ?? 'signed'}
          error={errors.format}
          id="wh-format"
        />
        <TextField
          label="URL (or the address, for email)"
          name="url"
          placeholder={editing ? 'unchanged' : 'https://… or team@example.com'}
          required={!editing}
          error={errors.url ?? errors.address}
          id="wh-url"
          autoComplete="off"
        />
        <TextField
          label="Secret (signs each POST)"
          name="secret"
          type="password"
          placeholder={editing?.signed ? 'unchanged' : 'at least 16 characters'}
          error={errors.secret}
          id="wh-secret"
          autoComplete="new-password"
        />
        <fieldset className="md:col-span-2">
          <legend className={labelClass()}>Alerts it receives</legend>
          <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
            {available.map(({ kind, label }) => (
              <label key={kind} className="flex items-center gap-1.5">
                <input
                  type="checkbox"
                  checked={kinds.has(kind)}
                  onChange={(e) => {
                    const next = new Set(kinds);
                    if (e.target.checked) next.add(kind);
                    else next.delete(kind);
                    setKinds(next);
                  }}
                />
                {label}
              </label>
            ))}
          </div>
          {errors.kinds && <p className="mt-1 text-xs text-red-700">{errors.kinds}</p>}
        </fieldset>
        <div className="flex items-center gap-3 md:col-span-2">
          <Button type="submit" tone="primary">
            {editing ? 'Save' : 'Add webhook'}
          </Button>
          {editing && (
            <Button type="button" tone="quiet" onClick={() => edit(null)}>
              Cancel
            </Button>
          )}
          <span role="status" className="text-xs text-slate-600" data-testid="webhook-note">
            {note}
          </span>
        </div>
        <div className="md:col-span-2">
          <Problem problem={problem} testId="webhook-problem" />
        </div>
      </form>
    </section>
  );
}
