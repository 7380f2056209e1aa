'use client';

import { useState } from 'react';

/**
 * The form that creates a delivery, posting to POST /api/deliveries (the same API scripts use). The
 * API's answer is shown as it came: each field's problem by name, or the new delivery. Secrets typed here
 * are sent once and never shown again.
 */

const field = 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm';
const FILTERS = ['sport', 'league', 'status', 'result', 'from', 'to'] as const;

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
        <label className="text-sm">
          Name
          <input name="name" required className={field} placeholder="Morning results" />
        </label>
        <label className="text-sm">
          What
          <select name="kind" value={kind} onChange={(e) => setKind(e.target.value)} className={field}>
            <option value="picks">picks</option>
            <option value="results">results</option>
            <option value="changes">changes since the last successful run</option>
          </select>
        </label>
        <label className="text-sm">
          Format
          <select name="format" className={field} defaultValue="csv">
            <option>csv</option>
            <option>json</option>
          </select>
        </label>
        <label className="text-sm">
          Schedule (cron, UTC)
          <input name="schedule" required className={field} placeholder="0 6 * * *" />
        </label>
        <label className="text-sm">
          Sport
          <input name="sport" className={field} />
        </label>
        <label className="text-sm">
          League
          <input name="league" className={field} />
        </label>
        {kind === 'changes' ? (
          <label className="text-sm">
            Kind of change
            <input name="changeKind" className={field} placeholder="any, or e.g. result" />
          </label>
        ) : (
          <>
            <label className="text-sm">
              Status
              <input name="status" className={field} />
            </label>
            <label className="text-sm">
              Result
              <input name="result" className={field} />
            </label>
            <label className="text-sm">
              From (UTC)
              <input name="from" className={field} placeholder="today-7d, or 2026-11-01" />
            </label>
            <label className="text-sm">
              To (UTC)
              <input name="to" className={field} placeholder="today, now, today+1d" />
            </label>
          </>
        )}
        <label className="text-sm">
          Destination
          <select name="type" value={type} onChange={(e) => setType(e.target.value as typeof type)} className={field}>
            <option value="directory">folder on the server</option>
            <option value="sftp">SFTP</option>
            <option value="webhook">webhook</option>
          </select>
        </label>
        {type === 'directory' && (
          <label className="text-sm">
            Folder (under the delivery root)
            <input name="folder" className={field} placeholder="partner/daily" />
          </label>
        )}
        {type === 'sftp' && (
          <>
            <label className="text-sm">
              Host
              <input name="host" required className={field} />
            </label>
            <label className="text-sm">
              Port
              <input name="port" className={field} placeholder="22" inputMode="numeric" />
            </label>
            <label className="text-sm">
              Username
              <input name="username" required className={field} />
            </label>
            <label className="text-sm">
              Remote folder
              <input name="path" className={field} placeholder="incoming" />
            </label>
            <label className="text-sm">
              Password
              <input name="password" type="password" autoComplete="new-password" className={field} />
            </label>
            <label className="text-sm sm:col-span-2">
              Or a private key (OpenSSH)
              <textarea name="privateKey" rows={2} className={field} />
            </label>
          </>
        )}
        {type === 'webhook' && (
          <>
            <label className="text-sm sm:col-span-2">
              URL (https)
              <input name="url" required type="url" className={field} />
            </label>
            <label className="text-sm">
              Signing secret (16+ characters)
              <input name="secret" required type="password" autoComplete="new-password" className={field} />
            </label>
          </>
        )}
      </div>
      <Problem problem={problem} />
      <button
        disabled={pending}
        className="rounded-md bg-brand-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-brand-700 disabled:opacity-50"
      >
        {pending ? 'Saving…' : 'Create delivery'}
      </button>
    </form>
  );
}
