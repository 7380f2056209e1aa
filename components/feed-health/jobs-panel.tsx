import type { JobView } from '@/lib/jobs/view';
import { DataTable, type Column } from '@/components/ui/data-table';
import { StatusBadge } from '@/components/ui/badge';
import { UtcTime } from '@/components/utc-time';

const every = (s: number) => (s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`);
const took = (ms: number | null) => (ms === null ? '—' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The portal's background jobs on every instance heard from in a day (lib/jobs/registry.ts): last run, outcome, next run. */
export function JobsPanel({ jobs, detail }: { jobs: JobView[]; detail: boolean }) {
  // Instance ids (host:pid) are for admins; others read the instances numbered, this one first.
  const numbered = [...new Set([...jobs].sort((a, b) => Number(b.here) - Number(a.here)).map((j) => j.instance))];
  const instance = (j: JobView) => (detail ? j.instance : `instance ${numbered.indexOf(j.instance) + 1}`);
  const columns: Column<JobView>[] = [
    { id: 'name', header: 'Job', nowrap: true, cell: (j) => <span className="font-medium">{j.name}</span> },
    {
      id: 'instance',
      header: 'Instance',
      cell: (j) => (j.here ? `${instance(j)} (this one)` : instance(j)),
      truncate: (j) => (j.here ? `${instance(j)} (this one)` : instance(j)),
      cutAt: 'max-w-40',
    },
    { id: 'every', header: 'Every', align: 'right', cell: (j) => every(j.everySeconds) },
    { id: 'lease', header: 'Runs on', truncate: (j) => j.lease, cell: (j) => j.lease, cutAt: 'max-w-32' },
    { id: 'last', header: 'Last run', nowrap: true, cell: (j) => <UtcTime iso={j.lastStartedAt} /> },
    { id: 'took', header: 'Took', align: 'right', cell: (j) => took(j.lastMs) },
    { id: 'outcome', header: 'Outcome', cell: (j) => <StatusBadge value={j.lastOutcome} /> },
    {
      id: 'next',
      header: 'Next run',
      nowrap: true,
      cell: (j) =>
        j.silentSince ? (
          <span className="text-amber-800 dark:text-amber-200">
            missed: silent since <UtcTime iso={j.silentSince} />
          </span>
        ) : (
          <UtcTime iso={j.nextRunAt} />
        ),
    },
    { id: 'runs', header: 'Runs (failed)', align: 'right', cell: (j) => `${j.runs.toLocaleString('en-GB')} (${j.failures})` },
    ...(detail
      ? [
          {
            id: 'problem',
            header: 'Last problem',
            truncate: (j: JobView) => j.lastProblem ?? '—',
            cell: (j: JobView) => j.lastProblem ?? '—',
            cutAt: 'max-w-40' as const,
          },
        ]
      : []),
  ];
  return (
    <section aria-labelledby="jobs" className="space-y-2">
      <h2 id="jobs" className="font-semibold">
        Background jobs
      </h2>
      <p className="text-xs text-slate-600">
        What each instance runs by itself: polling, deliveries, alerts, sealing, pruning. A job that failed runs again at its next period;
        one that missed its next run by far is marked silent (its instance stopped, or is stuck), and is listed for a day.
      </p>
      <DataTable
        testId="jobs-table"
        label="Background jobs"
        cards
        columns={columns}
        rows={jobs}
        rowKey={(j) => `${j.name}@${j.instance}`}
        rowData={(j) => ({ 'data-job': j.name, 'data-outcome': j.lastOutcome ?? '', 'data-silent': j.silentSince ? 'yes' : 'no' })}
      />
    </section>
  );
}
