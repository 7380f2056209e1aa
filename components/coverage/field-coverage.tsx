'use client';

import { pct, Section } from '@/components/coverage/section';
import { DataTable, type Column } from '@/components/ui/data-table';
import type { CoverageReport } from '@/lib/coverage/aggregate';

type FieldRow = CoverageReport['fieldCoverage'][number];

const COLUMNS: Column<FieldRow>[] = [
  { id: 'field', header: 'Field', rowHeader: true, className: 'font-mono text-xs', cell: (f) => f.field },
  { id: 'present', header: 'Present', align: 'right', cell: (f) => f.present.toLocaleString() },
  {
    id: 'share',
    header: 'Share',
    headerClassName: 'w-1/2',
    cell: (f) => (
      <div className="flex items-center gap-2">
        <div className="h-2 flex-1 rounded bg-slate-100">
          <div
            className={`h-2 rounded ${f.share < 0.5 ? 'bg-amber-500' : 'bg-emerald-600'}`}
            style={{ width: `${(f.share * 100).toFixed(1)}%` }}
          />
        </div>
        <span className="w-14 text-right tabular-nums">{pct(f.share)}</span>
      </div>
    ),
  },
];

/** For each documented field, the share of delivered picks where it is present and not null. */
export function FieldCoverage({ report }: { report: CoverageReport }) {
  return (
    <Section
      id="fields"
      title="Field coverage"
      note="Share of delivered picks in which each documented field is present and not null: how the content mode shows in practice."
    >
      <DataTable
        testId="field-coverage"
        frame="bare"
        caption="Field coverage"
        columns={COLUMNS}
        rows={report.fieldCoverage}
        rowKey={(f) => f.field}
        rowData={(f) => ({ 'data-field': f.field, 'data-share': f.share.toFixed(4) })}
      />
    </Section>
  );
}
