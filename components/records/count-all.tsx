'use client';

import { useState } from 'react';
import { plural } from '@/lib/plural';
import { linkClass } from '@/components/ui/text-link';

/** "Count all": the total for the current filters, asked for on a click and shown when it comes; the page never waits for it. */
export function CountAll({ kind, query }: { kind: 'picks' | 'results'; query: string }) {
  const [state, setState] = useState<{ phase: 'idle' | 'counting' | 'done' | 'failed'; text: string }>({ phase: 'idle', text: '' });
  const params = new URLSearchParams(query);
  for (const key of ['cursor', 'trail', 'limit']) params.delete(key);
  params.set('kind', kind);
  async function count() {
    setState({ phase: 'counting', text: 'Counting…' });
    try {
      const res = await fetch(`/api/records/count?${params}`);
      const body = (await res.json()) as { records?: number; error?: { message: string } };
      if (!res.ok) return setState({ phase: 'failed', text: body.error?.message ?? `The count failed (HTTP ${res.status}).` });
      setState({ phase: 'done', text: `${plural(body.records!, 'record')} in all` });
    } catch {
      setState({ phase: 'failed', text: 'The count could not be fetched.' });
    }
  }
  return state.phase === 'idle' ? (
    <button type="button" onClick={() => void count()} className={linkClass('text-xs font-medium')}>
      Count all
    </button>
  ) : (
    <span role="status" data-testid="count-all" data-phase={state.phase} className="text-xs text-slate-600">
      {state.text}
    </span>
  );
}
