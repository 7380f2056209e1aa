'use client';

import { pct, Section, td, th } from '@/components/coverage/section';
import type { CoverageReport } from '@/lib/coverage/aggregate';

/** For each documented field, the share of delivered picks where it is present and not null. */
export function FieldCoverage({ report }: { report: CoverageReport }) {
  return (
    <Section
      id="fields"
      title="Field coverage"
      note="Share of delivered picks in which each documented field is present and not null: how the content mode shows in practice."
    >
      <div className="overflow-x-auto">
        <table className="min-w-full text-sm" data-testid="field-coverage">
          <caption className="sr-only">Field coverage</caption>
          <thead>
            <tr>
              <th scope="col" className={th}>
                Field
              </th>
              <th scope="col" className={th}>
                Present
              </th>
              <th scope="col" className={`${th} w-1/2`}>
                Share
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {report.fieldCoverage.map((f) => (
              <tr key={f.field} data-field={f.field} data-share={f.share.toFixed(4)}>
                <th scope="row" className={`${td} text-left font-mono text-xs font-normal`}>
                  {f.field}
                </th>
                <td className={`${td} tabular-nums`}>{f.present.toLocaleString()}</td>
                <td className={td}>
                  <div className="flex items-center gap-2">
                    <div className="h-2 flex-1 rounded bg-slate-100">
                      <div
                        className={`h-2 rounded ${f.share < 0.5 ? 'bg-amber-500' : 'bg-emerald-600'}`}
                        style={{ width: `${(f.share * 100).toFixed(1)}%` }}
                      />
                    </div>
                    <span className="w-14 text-right tabular-nums">{pct(f.share)}</span>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
