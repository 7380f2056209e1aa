'use client';

import { PortalLink } from '@/components/portal-link';
import { useState } from 'react';
import { useHydrated } from '@/components/ui/use-hydrated';
import { useEvery } from '@/components/use-every';
import type { DeliveryView } from '@/lib/deliveries/view';
import type { Vocabulary } from '@/lib/deliveries/filter-rules';
import { plural } from '@/lib/plural';
import { DeliveryForm } from '@/components/deliveries/delivery-form';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { buttonClass } from '@/components/ui/button';
import { cardClass, EmptyState } from '@/components/ui/card';
import { Badge } from '@/components/ui/badge';
import { tableCounts } from '@/components/deliveries/table-counts';

/** /deliveries: every delivery with its schedule in words, next runs, last run and state, through the HTTP API. */

const button = buttonClass('secondary', 'sm');
const utc = (iso: string | null | undefined) => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : '—');

function where(d: DeliveryView): string {
  const dest = d.destination as Record<string, unknown>;
  if (dest.type === 'directory') return `folder ${String(dest.folder) || '(the delivery root)'}`;
  if (dest.type === 'sftp') return `sftp://${String(dest.username)}@${String(dest.host)}:${String(dest.port)}/${String(dest.path)}`;
  if (dest.type === 's3') {
    const at = dest.endpoint ? ` at ${new URL(String(dest.endpoint)).host}` : '';
    return `s3://${String(dest.bucket)}/${String(dest.prefix ?? '') ? `${String(dest.prefix).replace(/\/+$/, '')}/` : ''}dt=…${at}`;
  }
  if (dest.type === 'postgres')
    return `table ${String(dest.schema)}.${String(dest.table)} in postgres://${String(dest.user)}@${String(dest.host)}:${String(dest.port)}/${String(dest.database)}`;
  return `webhook ${String(dest.url)}`;
}

export function DeliveryList({ initial, isAdmin, vocabulary }: { initial: DeliveryView[]; isAdmin: boolean; vocabulary: Vocabulary }) {
  const [list, setList] = useState(initial);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  // The buttons wait for the page to handle their click (none swallowed right after load).
  const hydrated = useHydrated();
  const [tests, setTests] = useState<Record<string, ConnectionTest | 'testing'>>({});

  async function refresh() {
    const answer = await callApi('/api/deliveries');
    if (answer.ok) setList((answer.body as { data: DeliveryView[] }).data);
    else setProblem(answer.problem);
  }

  // While a run is in flight the list refreshes itself every 2 s, and the note says how the run ended.
  const running = list
    .filter((d) => d.lastRun?.outcome === 'running')
    .map((d) => d.id)
    .join(' ');
  useEvery(running !== '', 2_000, () => void refresh());
  const watched = note.startsWith('“') ? list.find((d) => note.startsWith(`“${d.name}”`)) : undefined;
  const shown =
    watched && watched.lastRun && watched.lastRun.outcome !== 'running'
      ? `“${watched.name}” ran: ${watched.lastRun.outcome === 'complete' && watched.lastRun.records === 0 ? 'complete, but empty' : watched.lastRun.outcome}.`
      : note;

  async function act(d: DeliveryView, what: 'run' | 'pause' | 'resume' | 'delete' | 'repin') {
    if (what === 'delete' && !window.confirm(`Delete the delivery “${d.name}” and its run history?`)) return;
    setBusy(d.id);
    const answer =
      what === 'run'
        ? await callApi(`/api/deliveries/${d.id}/run`, { method: 'POST' })
        : what === 'delete'
          ? await callApi(`/api/deliveries/${d.id}`, { method: 'DELETE' })
          : await callApi(`/api/deliveries/${d.id}`, {
              method: 'PATCH',
              body: JSON.stringify(what === 'repin' ? { repinHostKey: true } : { paused: what === 'pause' }),
            });
    setBusy(null);
    if (!answer.ok) return setProblem(answer.problem);
    setProblem(null);
    setNote(what === 'run' ? `“${d.name}” is running…` : '');
    await refresh();
  }

  /** Test connection: each step beside the button that asked, the first failure saying why. */
  async function probe(d: DeliveryView) {
    setBusy(d.id);
    setTests((now) => ({ ...now, [d.id]: 'testing' }));
    const answer = await callApi(`/api/deliveries/${d.id}/test`, { method: 'POST' });
    setBusy(null);
    setTests((now) => ({
      ...now,
      [d.id]: answer.ok ? (answer.body as ConnectionTest) : { ok: false, steps: [], problem: answer.problem.message },
    }));
  }

  return (
    <div className="space-y-4">
      <Problem problem={problem} />
      {shown ? (
        <p role="status" className="text-sm text-slate-700" data-testid="run-note">
          {shown}
        </p>
      ) : null}
      {list.length === 0 ? (
        <EmptyState testId="deliveries-empty">
          No deliveries yet. Set one up with the form below: what to send, where, and when; the preview counts what it would deliver before
          you save it.
        </EmptyState>
      ) : (
        <ul className="space-y-3" data-testid="deliveries">
          {list.map((d) => (
            <li key={d.id} data-delivery={d.name} className={cardClass('p-4 text-sm')}>
              <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                <h3 className="text-base font-semibold">{d.name}</h3>
                <span className="text-slate-600">
                  {(d.destination as { type?: string }).type === 'postgres' ? d.kind : `${d.kind} as ${d.format}`} → {where(d)}
                </span>
                {d.paused ? (
                  <Badge tone="warning" data-state="paused">
                    paused
                  </Badge>
                ) : d.failuresInARow > 0 ? (
                  <Badge tone="danger" data-state="failing">
                    failing ({d.failuresInARow} in a row)
                  </Badge>
                ) : d.emptyRunsInARow > 0 ? (
                  <Badge
                    tone={d.deliversNothing ? 'danger' : 'warning'}
                    data-state="empty"
                    title="Runs that completed with 0 records: the filters may match nothing"
                  >
                    {d.deliversNothing ? `delivering nothing (${d.emptyRunsInARow} empty runs in a row)` : 'last run empty'}
                  </Badge>
                ) : null}
              </div>
              {d.pauseReason ? <p className="mt-1 text-amber-900">{d.pauseReason}</p> : null}
              <dl className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-[10rem_1fr]">
                <dt className="text-slate-500">Schedule</dt>
                <dd>
                  {d.scheduleInWords} <code className="ml-1 text-xs text-slate-500">{d.schedule}</code>
                </dd>
                <dt className="text-slate-500">Next runs</dt>
                <dd data-testid="next-runs">{d.paused ? 'none while paused' : d.nextRuns.map(utc).join(' · ')}</dd>
                <dt className="text-slate-500">Filters</dt>
                <dd data-testid="filters">
                  {Object.entries(d.filters)
                    .map(([key, value]) => `${key} ${value}`)
                    .join(' · ') || 'all records'}
                </dd>
                {'secret' in d.destination ? (
                  <>
                    <dt className="text-slate-500">Secret</dt>
                    <dd>{String(d.destination.secret)} (never shown)</dd>
                  </>
                ) : null}
                {d.corrections ? (
                  <>
                    <dt className="text-slate-500">Corrections</dt>
                    <dd data-testid="sends-corrections">sent after each poll that changes what it delivered</dd>
                  </>
                ) : null}
                {d.encryptedTo ? (
                  <>
                    <dt className="text-slate-500">Encrypted to</dt>
                    <dd className="font-mono text-xs" data-testid="encrypted-to">
                      {d.encryptedTo}
                    </dd>
                  </>
                ) : null}
                {d.hostKey ? (
                  <>
                    <dt className="text-slate-500">Host key pinned</dt>
                    <dd className="font-mono text-xs">{d.hostKey}</dd>
                  </>
                ) : null}
                <dt className="text-slate-500">Last run</dt>
                <dd data-testid="last-run">
                  {d.lastRun
                    ? `${d.lastRun.outcome === 'complete' && d.lastRun.records === 0 ? 'empty' : d.lastRun.outcome} · ${utc(d.lastRun.startedAt)}${d.lastRun.records !== null ? ` · ${plural(d.lastRun.records, 'record')}` : ''}${d.lastRun.table ? ` · ${tableCounts(d.lastRun.table)}` : ''}${d.lastRun.error ? ` · ${d.lastRun.error}` : ''}`
                    : 'never'}
                </dd>
              </dl>
              <div className="mt-3 flex flex-wrap gap-2">
                <button className={button} disabled={!hydrated || busy === d.id} onClick={() => void act(d, 'run')}>
                  Run now
                </button>
                <button className={button} disabled={!hydrated || busy === d.id} onClick={() => void act(d, d.paused ? 'resume' : 'pause')}>
                  {d.paused ? 'Resume' : 'Pause'}
                </button>
                {['s3', 'postgres', 'sftp', 'webhook'].includes(String((d.destination as { type?: string }).type)) ? (
                  <button className={button} disabled={!hydrated || busy === d.id} onClick={() => void probe(d)}>
                    Test connection
                  </button>
                ) : null}
                {d.hostKey && isAdmin ? (
                  <button className={button} disabled={!hydrated || busy === d.id} onClick={() => void act(d, 'repin')}>
                    Re-pin host key
                  </button>
                ) : null}
                <PortalLink className={button} href={`/deliveries/${d.id}`}>
                  Run history
                </PortalLink>
                <button className={`${button} text-red-700`} disabled={!hydrated || busy === d.id} onClick={() => void act(d, 'delete')}>
                  Delete
                </button>
              </div>
              {tests[d.id] && <TestResult test={tests[d.id]!} />}
            </li>
          ))}
        </ul>
      )}
      <DeliveryForm vocabulary={vocabulary} onCreated={() => void refresh()} />
    </div>
  );
}

type ConnectionTest = { ok: boolean; steps: { step: string; ok: boolean; detail: string }[]; problem?: string };

/** A connection test's answer under its button: each step in plain words, ✓ or ✗. */
function TestResult({ test }: { test: ConnectionTest | 'testing' }) {
  if (test === 'testing')
    return (
      <p role="status" className="mt-2 text-slate-600" data-testid="connection-test" data-state="testing">
        Testing the connection…
      </p>
    );
  return (
    <div role="status" className="mt-2" data-testid="connection-test" data-state={test.ok ? 'ok' : 'failed'}>
      <p className="font-medium">{test.ok ? 'The connection works:' : 'The connection failed:'}</p>
      {test.problem && <p className="text-red-800">{test.problem}</p>}
      <ul className="mt-1 space-y-0.5">
        {test.steps.map((step) => (
          <li
            key={step.step}
            data-step={step.step}
            data-ok={step.ok ? 'yes' : 'no'}
            className={step.ok ? 'text-slate-700' : 'text-red-800'}
          >
            {step.ok ? '✓' : '✗'} <span className="font-medium">{step.step}</span>: {step.detail.replace(/\.$/, '')}
          </li>
        ))}
      </ul>
    </div>
  );
}
