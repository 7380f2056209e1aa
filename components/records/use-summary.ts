'use client';

import { useEffect, useState } from 'react';
import type { RecordsSummary } from '@/lib/records/summary';

export type SummaryState =
  { phase: 'loading' } | { phase: 'failed'; message: string } | { phase: 'done'; summary: RecordsSummary & { summarisedAt: string } };

/**
 * The summary of a filtered set (GET /api/records/summary), asked for once the page has loaded so that the
 * page never waits for the walk; the query's paging is left out (a summary is of the whole set). A new query
 * means a new component (give it the query as its key).
 */
export function useSummary(kind: 'picks' | 'results', query: string): SummaryState {
  const [state, setState] = useState<SummaryState>({ phase: 'loading' });
  useEffect(() => {
    const params = new URLSearchParams(query);
    for (const key of ['cursor', 'trail', 'limit']) params.delete(key);
    params.set('kind', kind);
    const controller = new AbortController();
    fetch(`/api/records/summary?${params}`, { signal: controller.signal })
      .then(async (res) => {
        const body = (await res.json()) as RecordsSummary & { summarisedAt: string; error?: { message: string } };
        setState(
          res.ok
            ? { phase: 'done', summary: body }
            : { phase: 'failed', message: body.error?.message ?? `The summary failed (HTTP ${res.status}).` },
        );
      })
      .catch(() => controller.signal.aborted || setState({ phase: 'failed', message: 'The summary could not be fetched.' }));
    return () => controller.abort();
  }, [kind, query]);
  return state;
}
