import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore, openedStore } from '../store';
import { listJobRuns, type JobRunRow } from '../store/jobs';
import { jobStatus, type JobStatus } from './registry';

/** A job as /health shows it: which instance, how often, under which lease, its last run and next. */
export interface JobView {
  name: string;
  instance: string;
  here: boolean;
  everySeconds: number;
  lease: string;
  lastStartedAt: string | null;
  lastMs: number | null;
  lastOutcome: string | null;
  /** Only for those who may see operations' detail (admins). */
  lastProblem: string | null;
  nextRunAt: string | null;
  runs: number;
  failures: number;
  /** Another instance's job that missed its next run by far (the instance stopped, or is stuck): since when it is silent. */
  silentSince: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const DAY_MS = 86_400_000;

/**
 * A row is written after a run at most every 30 s while nothing changes (lib/jobs/registry.ts), and a run may take a
 * while: a job is silent once its next run is late by more than 90 s and two of its periods.
 */
const isSilent = (row: Pick<JobRunRow, 'next_ms' | 'every_ms'>, now: number) =>
  row.next_ms !== null && now - row.next_ms > Math.max(90_000, 2 * row.every_ms);

/**
 * Every instance's jobs heard from in the last day, from the store; this instance's from memory (its rows are
 * written at most every 30 s while nothing changes). Another instance's job long past its next run is marked silent
 * (a stopped instance's rows stay a day). Problems are shown only with `detail` (admins).
 */
export async function jobsForPage(detail: boolean): Promise<{ ok: true; jobs: JobView[] } | { ok: false; error: AppErrorJson }> {
  try {
    const rows = await fromStore((db) => listJobRuns(db, Date.now() - DAY_MS));
    const me = (await openedStore()?.catch(() => null))?.instance ?? null;
    const live = jobStatus();
    const now = Date.now();
    const fromRow = (row: JobRunRow): JobView => ({
      name: row.name,
      instance: row.instance,
      here: false,
      everySeconds: Math.round(row.every_ms / 1000),
      lease: row.lease,
      lastStartedAt: iso(row.last_started_ms),
      lastMs: row.last_ms,
      lastOutcome: row.last_outcome,
      lastProblem: detail ? row.last_problem : null,
      nextRunAt: iso(row.next_ms),
      runs: row.runs,
      failures: row.failures,
      silentSince: isSilent(row, now) ? iso(row.updated_ms) : null,
    });
    const fromLive = (status: JobStatus): JobView => ({
      name: status.name,
      instance: me ?? 'this instance',
      here: true,
      everySeconds: Math.round(status.everyMs / 1000),
      lease: status.lease,
      lastStartedAt: iso(status.lastStartedAt),
      lastMs: status.lastMs,
      lastOutcome: status.lastOutcome,
      lastProblem: detail ? status.lastProblem : null,
      nextRunAt: iso(status.nextRunAt),
      runs: status.runs,
      failures: status.failures,
      silentSince: null,
    });
    const others = rows.filter((row) => row.instance !== me).map(fromRow);
    const jobs = [...live.map(fromLive), ...others].sort((a, b) => a.name.localeCompare(b.name) || Number(b.here) - Number(a.here));
    return { ok: true, jobs };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}
