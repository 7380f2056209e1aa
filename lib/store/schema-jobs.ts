/** The job registry's tables (lib/jobs/), part of the store's Database (./schema.ts). */

/** Each instance's jobs as they last ran: /health shows them; rows of instances gone quiet are pruned. */
export interface JobRunsTable {
  name: string;
  instance: string;
  every_ms: number;
  /** Which instance runs it: 'every instance', 'one instance (job lease)', or the lease the job keeps itself. */
  lease: string;
  last_started_ms: number | null;
  last_ms: number | null;
  /** ok, failed or skipped (another instance holds its lease, or nothing was due). */
  last_outcome: string | null;
  last_problem: string | null;
  next_ms: number | null;
  runs: number;
  failures: number;
  updated_ms: number;
}

/** A job one instance at a time runs: the instance holding it, until when. */
export interface JobLeasesTable {
  name: string;
  holder: string;
  until_ms: number;
}
