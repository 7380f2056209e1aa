'use client';

import { PICK_STATUSES } from '@/lib/picks-api/vocabulary';
import { UtcTime } from '@/components/utc-time';
import { capitalise, pct, Section } from '@/components/coverage/section';
import type { CoverageReport } from '@/lib/coverage/aggregate';
import { DataTable, type Column } from '@/components/ui/data-table';
import { linkClass } from '@/components/ui/text-link';

type ScopeRow = CoverageReport['rows'][number];

const COLUMNS: Column<ScopeRow>[] = [
  { id: 'sport', header: 'Sport', cell: (r) => r.sport },
  { id: 'league', header: 'League', rowHeader: true, className: 'font-medium', cell: (r) => r.league },
  {
    id: 'licensed',
    header: 'Licensed',
    cell: (r) => (r.licensed === null ? 'not stated' : r.licensed ? 'yes' : <span className="font-medium text-red-700">no</span>),
  },
  { id: 'delivered', header: 'Delivered', align: 'right', cell: (r) => r.total },
  ...[...PICK_STATUSES, 'other' as const].map((status): Column<ScopeRow> => ({
    id: status,
    header: capitalise(status),
    align: 'right',
    cell: (r) => r.byStatus[status],
  })),
  { id: 'player-picks', header: 'Player picks', align: 'right', cell: (r) => pct(r.total ? r.playerPicks / r.total : null) },
  { id: 'last-published', header: 'Last published', nowrap: true, cell: (r) => <UtcTime iso={r.lastPublishedAt} /> },
  {
    id: 'empty-days',
    header: 'Days without picks',
    align: 'right',
    title: (r) => r.emptyDays.join(', '),
    cell: (r) => r.emptyDays.length,
  },
];

/** Licensed scope against delivery: one row per sport and league (a card each on a phone), downloadable as CSV. */
export function ScopeMatrix({ report, csvHref }: { report: CoverageReport; csvHref: string }) {
  return (
    <Section
      id="matrix"
      title="Licensed scope against delivery"
      note="One row per sport and league delivered in the range. “Licensed” comes from the licence (/me); “not stated” where it names no leagues."
    >
      <div className="mb-3">
        <a href={csvHref} className={linkClass('text-sm font-medium')}>
          Download the matrix as CSV
        </a>
      </div>
      <DataTable
        testId="coverage-matrix"
        frame="bare"
        // On a phone, a card per league (each figure labelled), not a wide table scrolling in its box.
        cards
        label="Scope against delivery per sport and league"
        caption="Scope against delivery per sport and league"
        columns={COLUMNS}
        rows={report.rows}
        rowKey={(r) => `${r.sport}/${r.league}`}
        rowData={(r) => ({ 'data-league': r.league })}
      />
    </Section>
  );
}
