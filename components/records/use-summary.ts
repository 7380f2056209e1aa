'use client';

import { useEffect, useState } from 'react';
import type { RecordsSummary } from '@/lib/records/summary';

type Asked<T> = { phase: 'loading' } | { phase: 'failed'; message: string } | { phase: 'done'; value: T };
export type SummaryState =
  { phase: 'loading' } | { phase: 'failed'; message: string } | { phase: 'done'; summary: RecordsSummary & { summarisedAt: string } };

/**
 * What the records pages ask for once they have loaded, so that the page never waits for a walk: the
 * summary of the filtered set (GET /api/records/summary) and its total (GET /api/records/count). The query's
 * paging is left out (both are of the whole set). A new query means a new component (give it the query as its key).
 */
export function useSummary(kind: 'picks' | 'results', query: string): SummaryState {
  const state = useAsked<RecordsSummary & { summarisedAt: string }>('/api/records/summary', kind, query);
  return state.phase === 'done' ? { phase: 'done', summary: state.value } : state;
}

export function useTotal(kind: 'picks' | 'results', query: string): Asked<{ records: number }> {
  return useAsked<{ records: number }>('/api/records/count', kind, query);
}

function useAsked<T>(path: string, kind: 'picks' | 'results', query: string): Asked<T> {
  const [state, setState] = useState<Asked<T>>({ phase: 'loading' });
  useEffect(() => {
    const params = new URLSearchParams(query);
    for (const key of ['cursor', 'trail', 'limit', 'page']) params.delete(key);
    params.set('kind', kind);
    let live = true;
    void ask<T>(`${path}?${params}`).then((next) => live && setState(next));
    return () => {
      live = false;
    };
  }, [path, kind, query]);
  return state;
}

/** One request per URL at a time, however many parts of the page show its answer (the total, the last page, a summary). */
const asking = new Map<string, Promise<Asked<unknown>>>();
function ask<T>(url: string): Promise<Asked<T>> {
  let answer = asking.get(url);
  if (!answer) {
    answer = fetch(url)
      .then(async (res): Promise<Asked<unknown>> => {
        const body = (await res.json()) as { error?: { message: string } };
        return res.ok ? { phase: 'done', value: body } : { phase: 'failed', message: body.error?.message ?? `HTTP ${res.status}` };
      })
      .catch((): Asked<unknown> => ({ phase: 'failed', message: 'It could not be fetched.' }))
      .finally(() => asking.delete(url));
    asking.set(url, answer);
  }
  return answer as Promise<Asked<T>>;
}
