import type { Kysely } from 'kysely';
import type { Database } from './schema';
import type { JobRunsTable } from './schema-jobs';

/** The job registry's rows (lib/jobs/registry.ts): each instance's jobs as they last ran, and the leases of one-instance jobs. */

type Db = Kysely<Database>;
export type JobRunRow = JobRunsTable;

/** Writes what this instance's job did last (one row a job and instance). */
export async function noteJobRun(db: Db, row: JobRunRow): Promise<void> {
  const { name, instance, ...rest } = row;
  await db
    .insertInto('job_runs')
    .values(row)
    .onConflict((oc) => oc.columns(['name', 'instance']).doUpdateSet(rest))
    .execute();
}

/** Every instance's jobs heard from since `sinceMs`, by name then instance. */
export async function listJobRuns(db: Db, sinceMs: number): Promise<JobRunRow[]> {
  const rows = await db.selectFrom('job_runs').selectAll().where('updated_ms', '>=', sinceMs).orderBy('name').orderBy('instance').execute();
  return rows.map((r) => ({
    ...r,
    every_ms: Number(r.every_ms),
    last_started_ms: r.last_started_ms === null ? null : Number(r.last_started_ms),
    last_ms: r.last_ms === null ? null : Number(r.last_ms),
    next_ms: r.next_ms === null ? null : Number(r.next_ms),
    runs: Number(r.runs),
    failures: Number(r.failures),
    updated_ms: Number(r.updated_ms),
  }));
}

/** Forgets the rows of instances not heard from since `beforeMs` (stopped or gone). */
export async function pruneJobRuns(db: Db, beforeMs: number): Promise<number> {
  const result = await db.deleteFrom('job_runs').where('updated_ms', '<', beforeMs).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Takes or renews the lease of job `name` for `holder` until `now + ttlMs`: true when this holder has it now. */
export async function claimJobLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  await db
    .insertInto('job_leases')
    .values({ name, holder: '', until_ms: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const result = await db
    .updateTable('job_leases')
    .set({ holder, until_ms: now + ttlMs })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('until_ms', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the lease up (a stopping instance), so another instance takes the job at its next period. */
export async function releaseJobLease(db: Db, name: string, holder: string): Promise<void> {
  await db.updateTable('job_leases').set({ holder: '', until_ms: 0 }).where('name', '=', name).where('holder', '=', holder).execute();
}
