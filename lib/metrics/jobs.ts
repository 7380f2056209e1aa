import 'server-only';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { jobStatus } from '../jobs/registry';

/**
 * The background jobs of this process (lib/jobs/registry.ts): every run's duration by job and outcome (its
 * count is the runs), and when each job last started and runs next, read when Prometheus scrapes.
 */
export function jobMetrics(registry: Registry) {
  const byJob = (pick: (status: ReturnType<typeof jobStatus>[number]) => number | null) =>
    function collect(this: Gauge) {
      this.reset();
      for (const status of jobStatus()) {
        const ms = pick(status);
        if (ms !== null) this.set({ job: status.name }, ms / 1000);
      }
    };
  return {
    jobSeconds: new Histogram({
      name: 'portal_job_run_duration_seconds',
      help: 'Background job runs by job and outcome (ok, failed, skipped): their count is the runs',
      labelNames: ['job', 'outcome'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers: [registry],
    }),
    jobLast: new Gauge({
      name: 'portal_job_last_run_timestamp_seconds',
      help: 'When each background job last started (Unix time)',
      labelNames: ['job'],
      registers: [registry],
      collect: byJob((s) => s.lastStartedAt),
    }),
    jobNext: new Gauge({
      name: 'portal_job_next_run_timestamp_seconds',
      help: 'When each background job runs next (Unix time)',
      labelNames: ['job'],
      registers: [registry],
      collect: byJob((s) => s.nextRunAt),
    }),
  };
}
