'use client';

import dynamic from 'next/dynamic';
import { useEffect, useState } from 'react';
import type { CoverageReport } from '@/lib/coverage/aggregate';
import type { AppErrorJson } from '@/lib/errors';
import { ErrorPanel } from '@/components/error-panel';

// The report and its charts (recharts, most of this page's JavaScript) are needed only once the walk is
// complete: they load while it runs (the import starts on mount), not before the page is interactive.
const loadView = () => import('@/components/coverage/coverage-view').then((module) => module.CoverageView);
const CoverageView = dynamic(loadView, {
  ssr: false,
  loading: () => (
    <p role="status" className="text-sm text-slate-700">
      Preparing the report…
    </p>
  ),
});

type Phase =
  | { kind: 'running'; records: number; requests: number }
  | { kind: 'done'; report: CoverageReport; requests: number; ms: number }
  | { kind: 'failed'; error: AppErrorJson };

const failure = (message: string): AppErrorJson => ({
  status: 502,
  code: 'UPSTREAM_ERROR',
  message,
  requestId: null,
  retryAfterSeconds: null,
});

/** Runs one coverage walk through /api/coverage, showing progress as pages arrive; figures only once it is complete. */
export function CoverageRunner({ query }: { query: string }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'running', records: 0, requests: 0 });

  useEffect(() => {
    // A new query mounts a new runner (keyed by the page), so the state starts fresh without a reset here.
    const abort = new AbortController();
    void loadView().catch(() => {}); // a failed chunk load shows when the report renders
    (async () => {
      const res = await fetch(`/api/coverage?${query}`, { signal: abort.signal, cache: 'no-store' });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => null);
        setPhase({ kind: 'failed', error: body?.error ?? failure(`Coverage failed (HTTP ${res.status}).`) });
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let ended = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const event = JSON.parse(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (event.type === 'progress') setPhase({ kind: 'running', records: event.records, requests: event.requests });
          if (event.type === 'result') {
            ended = true;
            setPhase({ kind: 'done', report: event.report, requests: event.requests, ms: event.ms });
          }
          if (event.type === 'error') {
            ended = true;
            setPhase({ kind: 'failed', error: event.error });
          }
        }
      }
      if (!ended) throw new Error('The coverage stream ended early.');
    })().catch((error: unknown) => {
      if (abort.signal.aborted) return;
      setPhase({ kind: 'failed', error: failure(error instanceof Error ? error.message : 'Coverage failed.') });
    });
    return () => abort.abort();
  }, [query]);

  if (phase.kind === 'running') {
    return (
      <div role="status" aria-live="polite" className="space-y-3" data-testid="coverage-progress">
        <p className="text-sm text-slate-700">
          Walking the licensed picks… <strong>{phase.records.toLocaleString()}</strong> records, <strong>{phase.requests}</strong> upstream
          requests so far.
        </p>
        <div className="grid gap-3 md:grid-cols-2">
          {Array.from({ length: 4 }, (_, i) => (
            <div key={i} className="h-48 animate-pulse rounded-lg bg-slate-200" />
          ))}
        </div>
      </div>
    );
  }
  if (phase.kind === 'failed') return <ErrorPanel error={phase.error} retryHref={`/coverage?${query}`} />;
  return (
    <CoverageView
      report={phase.report}
      requests={phase.requests}
      ms={phase.ms}
      csvHref={`/api/coverage?${query}${query ? '&' : ''}format=csv`}
    />
  );
}
