'use client';

import { Section } from '@/components/coverage/section';
import type { CoverageReport } from '@/lib/coverage/aggregate';

/** Licensed leagues with nothing delivered, delivered leagues the licence does not name, empty days. */
export function CoverageGaps({ report }: { report: CoverageReport }) {
  return (
    <Section id="gaps" title="Gaps">
      <div className="grid gap-4 text-sm md:grid-cols-3">
        <div>
          <h3 className="font-medium">Licensed, nothing delivered</h3>
          {report.gaps.licensedNotDelivered === null ? (
            <p className="text-slate-600">Cannot be told under a sport filter: the licence lists leagues without their sport.</p>
          ) : !report.gaps.licenceStatesLeagues ? (
            <p className="text-slate-600">The licence does not state its leagues.</p>
          ) : report.gaps.licensedNotDelivered.length === 0 ? (
            <p className="text-slate-600">None.</p>
          ) : (
            <ul className="list-inside list-disc" data-testid="gap-licensed">
              {report.gaps.licensedNotDelivered.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3 className="font-medium">Delivered, not named in the licence</h3>
          {report.gaps.deliveredNotLicensed.length === 0 ? (
            <p className="text-slate-600">None.</p>
          ) : (
            <ul className="list-inside list-disc">
              {report.gaps.deliveredNotLicensed.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3 className="font-medium">Days without picks, per league</h3>
          <ul className="space-y-0.5">
            {report.rows
              .filter((r) => r.emptyDays.length > 0)
              .map((r) => (
                <li key={r.league}>
                  <span className="font-medium">{r.league}</span>: {r.emptyDays.length} of {report.range.days.length} days
                </li>
              ))}
          </ul>
        </div>
      </div>
    </Section>
  );
}
