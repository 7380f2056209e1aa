'use client';

import { useState } from 'react';
import { plural } from '@/lib/plural';
import { JUMP_MAX_PAGES } from '@/lib/paging';
import { linkClass } from '@/components/ui/text-link';
import { buttonClass } from '@/components/ui/button';
import { PortalLink } from '@/components/portal-link';
import { useTotal } from '@/components/records/use-summary';

/**
 * The total for the current filters, counted in the background once the page has loaded (GET
 * /api/records/count: one walk a minute for everyone on the same filters) and shown when it comes; the page
 * never waits for it. A count that failed (a busy walk slot, an outage) is offered again on a click.
 */
export function CountAll({ kind, query }: { kind: 'picks' | 'results'; query: string }) {
  const total = useTotal(kind, query);
  const [asked, setAsked] = useState<{ phase: 'counting' | 'done' | 'failed'; text: string } | null>(null);
  async function count() {
    const params = new URLSearchParams(query);
    for (const key of ['cursor', 'trail', 'limit', 'page']) params.delete(key);
    params.set('kind', kind);
    setAsked({ phase: 'counting', text: 'Counting…' });
    try {
      const res = await fetch(`/api/records/count?${params}`);
      const body = (await res.json()) as { records?: number; error?: { message: string } };
      if (!res.ok) return setAsked({ phase: 'failed', text: body.error?.message ?? `The count failed (HTTP ${res.status}).` });
      setAsked({ phase: 'done', text: `${plural(body.records!, 'record')} in all` });
    } catch {
      setAsked({ phase: 'failed', text: 'The count could not be fetched.' });
    }
  }
  if (asked && asked.phase !== 'failed') return status(asked.phase, asked.text);
  if (!asked && total.phase === 'loading') return status('counting', 'Counting…');
  if (!asked && total.phase === 'done') return status('done', `${plural(total.value.records, 'record')} in all`);
  return (
    <span className="text-xs text-slate-600" data-testid="count-failed">
      No total yet ({asked?.text ?? (total.phase === 'failed' ? total.message : '')}).{' '}
      <button type="button" onClick={() => void count()} className={linkClass('text-xs font-medium')}>
        Count all
      </button>
    </span>
  );
}

const status = (phase: string, text: string) => (
  <span role="status" data-testid="count-all" data-phase={phase} className="text-xs text-slate-600">
    {text}
  </span>
);

/** "Last": the last page by its number, once the background total says which it is (and it is near enough to walk to). */
export function LastPage({
  kind,
  query,
  href,
  size,
  onLast,
}: {
  kind: 'picks' | 'results';
  query: string;
  /** This view without its position; the page number is added. */
  href: string;
  size: number;
  /** This is the last page (no next one). */
  onLast: boolean;
}) {
  const total = useTotal(kind, query);
  const last = total.phase === 'done' ? Math.max(1, Math.ceil(total.value.records / size)) : null;
  if (last === null || onLast || last > JUMP_MAX_PAGES)
    return (
      <span
        className="rounded-md border border-slate-200 px-3 py-1.5 text-slate-500"
        aria-disabled="true"
        title={last !== null && last > JUMP_MAX_PAGES ? `Page ${last} is further in than the portal walks to: narrow the dates` : undefined}
      >
        Last
      </span>
    );
  return (
    <PortalLink href={`${href}${href.includes('?') ? '&' : '?'}page=${last}`} className={buttonClass()} data-testid="last-page">
      Last <span className="sr-only">page, </span>({last.toLocaleString('en-GB')})
    </PortalLink>
  );
}
