'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import type { AttemptView, EndpointView } from '@/lib/webhooks/view';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { cardClass } from '@/components/ui/card';
import { DataTable, type Column } from '@/components/ui/data-table';
import { labelClass, TextField } from '@/components/ui/field';
import { UtcTime } from '@/components/utc-time';
import type { Exchange } from '@/lib/vocabulary/exchange';
import { AttemptExchange } from './attempt-exchange';

/**
 * One consumer webhook on its token's page: where it stands in the token's stream, why it is failing or stopped,
 * its actions (send a test event, resend one event or every event after one, disable or enable, remove) and its
 * newest attempts, each with its outcome, response code and time taken.
 */

const TONES: Record<EndpointView['state'], BadgeTone> = {
  delivering: 'success',
  failing: 'warning',
  disabled: 'danger',
  paused: 'neutral',
  unconfirmed: 'warning',
};

const said = (a: AttemptView) =>
  a.outcome === 'delivered'
    ? `delivered: HTTP ${a.code} in ${a.durationMs} ms`
    : `not delivered: ${a.problem ?? (a.code ? `HTTP ${a.code}` : 'refused')} (${a.durationMs} ms)`;

const columns: Column<AttemptView>[] = [
  { id: 'at', header: 'When', nowrap: true, cell: (a) => <UtcTime iso={a.at} /> },
  { id: 'event', header: 'Event', nowrap: true, cell: (a) => (a.seq === null ? a.type : `#${a.seq} ${a.type}`) },
  { id: 'trigger', header: 'Sent as', cell: (a) => (a.trigger === 'delivery' ? 'in order' : a.trigger) },
  {
    id: 'outcome',
    header: 'Outcome',
    cell: (a) => <Badge tone={a.outcome === 'delivered' ? 'success' : a.outcome === 'failed' ? 'warning' : 'danger'}>{a.outcome}</Badge>,
  },
  { id: 'code', header: 'Code', align: 'right', cell: (a) => a.code ?? '—' },
  { id: 'duration', header: 'Took', align: 'right', nowrap: true, cell: (a) => `${a.durationMs} ms` },
  { id: 'problem', header: 'Why', cell: (a) => a.problem ?? '', truncate: (a) => a.problem ?? '' },
];

/** The table's columns, with a last one that opens an attempt's request and answer below the table. */
const withDetail = (open: (a: AttemptView) => void, shown: string | null, waiting: boolean): Column<AttemptView>[] => [
  ...columns,
  {
    id: 'exchange',
    header: 'Sent and answered',
    cell: (a) => (
      <Button size="sm" tone="quiet" disabled={waiting} aria-expanded={shown === a.id} onClick={() => open(a)}>
        {shown === a.id ? 'Shown below' : 'Show'}
      </Button>
    ),
  },
];

export function WebhookEndpoint({ tokenId, endpoint }: { tokenId: string; endpoint: EndpointView }) {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Disabled until the page can handle the click: a click right after load is never swallowed.
  const hydrated = useHydrated();
  const waiting = busy || !hydrated;
  const [seq, setSeq] = useState('');
  const [detail, setDetail] = useState<{ attempt: AttemptView; exchange: Exchange } | null>(null);
  const openDetail = async (attempt: AttemptView) => {
    setProblem(null);
    const answer = await callApi(`${base}/attempts/${attempt.id}`);
    if (!answer.ok) return setProblem(answer.problem);
    setDetail({ attempt, exchange: answer.body as Exchange });
  };
  const base = `/api/tokens/${tokenId}/webhooks/${endpoint.id}`;
  const act = async (path: string, method: string, body: unknown, done: (answer: unknown) => string | null) => {
    setBusy(true);
    setProblem(null);
    setResult(null);
    const answer = await callApi(`${base}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    setBusy(false);
    if (!answer.ok) return setProblem(answer.problem);
    setResult(done(answer.body));
    router.refresh();
  };
  const resend = (key: 'event' | 'after') => {
    const raw = seq.trim();
    void act('/resend', 'POST', { [key]: /^\d+$/.test(raw) ? Number(raw) : raw }, (body) =>
      key === 'event'
        ? `Event #${raw} sent again: ${said((body as { attempt: AttemptView }).attempt)}.`
        : `Every event after #${raw} is being sent again, in order.`,
    );
  };
  return (
    <article className={cardClass('space-y-3 p-4 text-sm')} data-testid="webhook" data-webhook={endpoint.id} data-state={endpoint.state}>
      <header className="flex flex-wrap items-center gap-2">
        <code className="break-all font-mono">{endpoint.url}</code>
        <Badge tone={TONES[endpoint.state]} data-testid="webhook-state">
          {endpoint.state}
        </Badge>
      </header>
      <dl className="grid gap-x-6 gap-y-1 md:grid-cols-3">
        <div>
          <dt className={labelClass()}>Delivered up to</dt>
          <dd data-testid="webhook-cursor">
            event #{endpoint.deliveredUpTo}
            {endpoint.behind > 0 ? ` (the feed is ${endpoint.behind} further on)` : ''}
          </dd>
        </div>
        <div>
          <dt className={labelClass()}>Event types</dt>
          <dd>{endpoint.kinds.join(', ')}</dd>
        </div>
        <div>
          <dt className={labelClass()}>Added</dt>
          <dd>
            <UtcTime iso={endpoint.createdAt} /> by {endpoint.createdBy}
          </dd>
        </div>
      </dl>
      {endpoint.why && (
        <p className="text-slate-700" data-testid="webhook-why">
          {endpoint.state === 'failing' && endpoint.failingSince ? (
            <>
              Failing since <UtcTime iso={endpoint.failingSince} />
              {endpoint.nextAttemptAt ? (
                <>
                  , next try <UtcTime iso={endpoint.nextAttemptAt} />
                </>
              ) : null}
              : {endpoint.why}
            </>
          ) : (
            `${endpoint.state === 'disabled' ? 'Disabled' : endpoint.state === 'unconfirmed' ? 'Waiting for the owner' : 'Paused'}: ${endpoint.why}`
          )}
        </p>
      )}
      {endpoint.wholeUrl && (
        <div className={cardClass('space-y-2 p-3')} data-testid="webhook-confirm">
          <p>
            It sends this token’s events, with whole records, to <code className="break-all font-mono">{endpoint.wholeUrl}</code>. Set up by{' '}
            {endpoint.confirmedBy}. Confirm it only if that address is one you answer for; otherwise remove it.
          </p>
          <Button size="sm" disabled={waiting} onClick={() => void act('/confirm', 'POST', undefined, () => 'Confirmed: it sends again.')}>
            Confirm this webhook
          </Button>
        </div>
      )}
      <div className="flex flex-wrap items-end gap-2">
        <Button
          size="sm"
          disabled={waiting}
          onClick={() => void act('/test', 'POST', undefined, (b) => `Test event ${said((b as { attempt: AttemptView }).attempt)}.`)}
        >
          Send a test event
        </Button>
        <div className="flex flex-wrap items-end gap-2">
          <div className="w-32">
            <TextField
              label="Event id"
              name="seq"
              id={`seq-${endpoint.id}`}
              inputMode="numeric"
              autoComplete="off"
              value={seq}
              onChange={(e) => setSeq(e.target.value)}
              error={problem?.details?.event ?? problem?.details?.after}
            />
          </div>
          <Button size="sm" disabled={waiting} onClick={() => resend('event')}>
            Resend this event
          </Button>
          <Button size="sm" disabled={waiting} onClick={() => resend('after')}>
            Resend every event after it
          </Button>
        </div>
        <Button
          size="sm"
          tone="quiet"
          disabled={waiting}
          onClick={() => void act('', 'PATCH', { enabled: endpoint.state === 'disabled' }, () => null)}
        >
          {endpoint.state === 'disabled' ? 'Enable' : 'Disable'}
        </Button>
        <Button
          size="sm"
          tone="remove"
          disabled={waiting}
          onClick={() => {
            if (window.confirm(`Remove the webhook ${endpoint.url}? It receives nothing more.`))
              void act('', 'DELETE', undefined, () => null);
          }}
        >
          Remove
        </Button>
      </div>
      {result && (
        <p role="status" className="text-slate-700" data-testid="webhook-result">
          {result}
        </p>
      )}
      <Problem problem={problem} testId="webhook-problem" />
      {endpoint.attempts.length > 0 ? (
        <DataTable
          testId="webhook-attempts"
          label={`Attempts to ${endpoint.url}`}
          frame="bare"
          size="small"
          columns={withDetail((a) => void openDetail(a), detail?.attempt.id ?? null, waiting)}
          rows={endpoint.attempts}
          rowKey={(a) => a.id}
          rowData={(a) => ({ 'data-outcome': a.outcome, 'data-seq': a.seq ?? '' })}
        />
      ) : (
        <p className="text-slate-600">No attempts yet: it is sent each new event of its types as the feed records it.</p>
      )}
      {detail && (
        <AttemptExchange
          exchange={detail.exchange}
          problem={detail.attempt.problem}
          title={detail.attempt.seq === null ? detail.attempt.type : `#${detail.attempt.seq} ${detail.attempt.type}`}
        />
      )}
    </article>
  );
}
