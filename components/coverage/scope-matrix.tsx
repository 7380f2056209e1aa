'use client';

import { PICK_STATUSES } from '@/lib/picks-api/vocabulary';
import { UtcTime } from '@/components/utc-time';
import { capitalise, HeaderRow, pct, Section, td } from '@/components/coverage/section';
import type { CoverageReport } from '@/lib/coverage/aggregate';
import { linkClass } from '@/components/ui/text-link';

/** Licensed scope against delivery: one row per sport and league, downloadable as CSV. */
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
      <div className="overflow-x-auto">
        <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="coverage-matrix">
          <caption className="sr-only">Scope against delivery per sport and league</caption>
          <thead className="bg-slate-50">
            <HeaderRow
              labels={[
                'Sport',
                'League',
                'Licensed',
                'Delivered',
                ...PICK_STATUSES.map(capitalise),
                'Other',
                'Player picks',
                'Last published',
                'Days without picks',
              ]}
            />
          </thead>
          <tbody className="divide-y divide-slate-100">
            {report.rows.map((r) => (
              <tr key={`${r.sport}/${r.league}`} data-league={r.league}>
                <td className={td}>{r.sport}</td>
                <th scope="row" className={`${td} text-left font-medium`}>
                  {r.league}
                </th>
                <td className={td}>
                  {r.licensed === null ? 'not stated' : r.licensed ? 'yes' : <span className="font-medium text-red-700">no</span>}
                </td>
                <td className={`${td} tabular-nums`} data-total="">
                  {r.total}
                </td>
                {[...PICK_STATUSES, 'other' as const].map((status) => (
                  <td key={status} className={`${td} tabular-nums`}>
                    {r.byStatus[status]}
                  </td>
                ))}
                <td className={`${td} tabular-nums`}>{pct(r.total ? r.playerPicks / r.total : null)}</td>
                <td className={td}>
                  <UtcTime iso={r.lastPublishedAt} />
                </td>
                <td className={`${td} tabular-nums`} title={r.emptyDays.join(', ')}>
                  {r.emptyDays.length}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
