import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { PortalLink } from '@/components/portal-link';
import type { AppErrorJson } from '@/lib/errors';
import { fieldChanges } from '@/lib/history/diff';
import type { ChangedRecord, Reconciliation } from '@/lib/history/reconcile';
import { pickHref } from '@/lib/picks-api/pick-view';
import { FieldChanges } from './field-value';
import { linkClass } from '@/components/ui/text-link';

/** A delivered file against what the portal knows now: counts, how each changed record changed, and the first of them. */

const SHOWN = 200;
const KIND_WORDS: Record<string, string> = {
  withdrawn: 'withdrawn',
  voided: 'voided',
  result: 'result changed',
  resettled: 're-settled',
  status: 'status moved',
  odds: 'odds edited',
  line: 'line edited',
  edited: 'other fields edited',
  republished: 'republished only',
};

const COLUMNS: Column<ChangedRecord>[] = [
  {
    id: 'id',
    header: 'Record',
    cell: (c) => (
      <PortalLink className={linkClass('font-mono text-xs')} href={pickHref(c.id)}>
        {c.id}
      </PortalLink>
    ),
  },
  { id: 'kinds', header: 'How', cell: (c) => c.kinds.map((k) => KIND_WORDS[k] ?? k).join(', ') },
  {
    id: 'changes',
    header: 'Delivered → now',
    cell: (c) => (c.now === null ? 'no longer delivered by the Picks API' : <FieldChanges changes={fieldChanges(c.delivered, c.now)} />),
  },
];

export function ReconciliationView({
  result,
  retryHref,
  correctionsHref,
}: {
  result: { ok: true; value: Reconciliation } | { ok: false; error: AppErrorJson };
  retryHref: string;
  correctionsHref?: string;
}) {
  return (
    <section aria-labelledby="reconcile" className="space-y-3" data-testid="reconciliation">
      <h2 id="reconcile" className="text-lg font-semibold">
        Reconcile
      </h2>
      {!result.ok ? (
        <ErrorPanel error={result.error} retryHref={retryHref} />
      ) : (
        <>
          <p
            className="text-sm text-slate-700"
            data-testid="reconcile-counts"
            data-records={result.value.records}
            data-unchanged={result.value.unchanged}
            data-changed={result.value.changed.length}
          >
            Of the {result.value.records} records delivered, {result.value.unchanged} are unchanged and {result.value.changed.length} have
            changed since, as far as the portal has seen
            {result.value.changed.length > 0
              ? `: ${Object.entries(result.value.byKind)
                  .map(([kind, n]) => `${n} ${KIND_WORDS[kind] ?? kind}`)
                  .join(', ')}`
              : ''}
            .
            {correctionsHref && result.value.changed.length > 0 ? (
              <>
                {' '}
                <a className={linkClass('font-medium')} href={correctionsHref}>
                  Download the corrections
                </a>
              </>
            ) : null}
          </p>
          {result.value.changed.length > 0 ? (
            <DataTable
              testId="reconcile-changed"
              label="Changed since delivered"
              columns={COLUMNS}
              rows={result.value.changed.slice(0, SHOWN)}
              rowKey={(c) => c.id}
              rowData={(c) => ({ 'data-id': c.id, 'data-kinds': c.kinds.join(' ') })}
            />
          ) : null}
          {result.value.changed.length > SHOWN ? (
            <p className="text-sm text-slate-600">The first {SHOWN} by id are shown; the JSON answer holds all.</p>
          ) : null}
        </>
      )}
    </section>
  );
}
