'use client';

import type { CoverageReport } from '@/lib/coverage/aggregate';
import { CoverageGaps } from '@/components/coverage/coverage-gaps';
import { FieldCoverage } from '@/components/coverage/field-coverage';
import { PicksTimeline } from '@/components/coverage/picks-timeline';
import { ScopeMatrix } from '@/components/coverage/scope-matrix';
import { SettledResults } from '@/components/coverage/settled-results';

/** The coverage report: its cost, then one section per question (components/coverage/). */
export function CoverageView({ report, requests, ms, csvHref }: { report: CoverageReport; requests: number; ms: number; csvHref: string }) {
  return (
    <div className="space-y-6" data-testid="coverage-report">
      <p className="text-sm text-slate-600" data-testid="coverage-cost">
        {report.records.toLocaleString()} picks delivered for {report.range.days.length} UTC days ({report.range.days[0]} to{' '}
        {report.range.days.at(-1)}), read with <strong>{requests}</strong> upstream requests in {(ms / 1000).toFixed(1)} s.
      </p>

      <ScopeMatrix report={report} csvHref={csvHref} />
      <CoverageGaps report={report} />
      <PicksTimeline report={report} />
      <FieldCoverage report={report} />
      <SettledResults report={report} />
    </div>
  );
}
