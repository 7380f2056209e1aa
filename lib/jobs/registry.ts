import type { Kysely } from 'kysely';
import { log } from '../log';
import { processSlot } from '../process-state';
import { claimJobLease, noteJobRun, releaseJobLease } from '../store/jobs';
import type { Database } from '../store/schema';

/**
 * The one home of background work (docs/architecture.md#background-work; ADR 0015). A job is a name, a
 * period, a lease, a run and a stop; the registry holds the only timer of each, never lets two runs of one
 * job overlap, logs a failure once while the same problem lasts, counts every run for /health and the
 * metrics, and stops every job when the instance stops: the loops at once, the work that must outlast
 * running exports (sealing, lease renewals) just before the store closes. Leases:
 * - 'every instance': each instance runs it (its own spool, its own view of the upstream's pause);
 * - 'one instance': the registry takes a lease in the store (job_leases) before each run, so one instance
 *   at a time runs it and another takes over within a period and a half of one that stopped;
 * - { own: '…' }: the job keeps a lease of its own (the change feed's, each delivery's claim) and says which.
 */

export type JobOutcome = 'ok' | 'failed' | 'skipped';
export type JobLease = 'every instance' | 'one instance' | { own: string };

export interface JobSpec {
  /** Its name in logs, on /health and in the metrics: lower-case words and dashes. */
  name: string;
  everyMs: number;
  lease: JobLease;
  /** One run; 'skipped' when it had nothing to do. A throw is a failure: logged, counted, run again next period. */
  run: (signal: AbortSignal) => Promise<JobOutcome | void>;
  /** The first run this long after registration (default: at once). */
  firstAfterMs?: number;
  /** When the instance stops: with the loops at once ('drain', the default), or just before the store closes ('close'). */
  stopsAt?: 'drain' | 'close';
  /** After the last run ended: release what the job holds, write what it keeps. */
  onStop?: () => Promise<void> | void;
}

export interface JobStatus {
  name: string;
  everyMs: number;
  lease: string;
  runs: number;
  failures: number;
  running: boolean;
  lastStartedAt: number | null;
  lastMs: number | null;
  lastOutcome: JobOutcome | null;
  lastProblem: string | null;
  nextRunAt: number | null;
}

export interface Job {
  readonly name: string;
  /** Runs it now (or joins the run under way). */
  runNow: () => Promise<JobOutcome>;
  stop: () => Promise<void>;
}

interface Entry {
  spec: JobSpec;
  job: Job;
  status: JobStatus;
  persistedAt: number;
  persistedOutcome: JobOutcome | null;
}

type JobStore = { db: Kysely<Database>; instance: string };
type Observer = (name: string, outcome: JobOutcome, ms: number) => void;

interface Registry {
  jobs: Set<Entry>;
  store: JobStore | null;
  observe: Observer | null;
}

const registry = () => processSlot<Registry>('jobs').once(() => ({ jobs: new Set(), store: null, observe: null }));
/** How often a job's row in the store is written at most while its outcome stays the same. */
const PERSIST_EVERY_MS = 30_000;

export const leaseLabel = (lease: JobLease): string => (typeof lease === 'string' ? lease : lease.own);

/** The store jobs keep their leases and their last runs in (lib/start/portal.ts, once the store is open). */
export function attachJobStore(store: JobStore): void {
  registry().store = store;
}

/** Every run's outcome and duration go to `observe` (the metrics). */
export function observeJobsWith(observe: Observer): void {
  registry().observe = observe;
}

export function registerJob(spec: JobSpec): Job {
  const reg = registry();
  const said = log('jobs', { job: spec.name });
  const controller = new AbortController();
  let running: Promise<JobOutcome> | null = null;
  let stopped = false;
  let stopping: Promise<void> | null = null;
  const status: JobStatus = {
    name: spec.name,
    everyMs: spec.everyMs,
    lease: leaseLabel(spec.lease),
    runs: 0,
    failures: 0,
    running: false,
    lastStartedAt: null,
    lastMs: null,
    lastOutcome: null,
    lastProblem: null,
    nextRunAt: Date.now() + (spec.firstAfterMs ?? 0),
  };

  const leaseHeld = async (started: number): Promise<boolean> => {
    if (spec.lease !== 'one instance') return true;
    const store = reg.store;
    return store !== null && claimJobLease(store.db, spec.name, store.instance, Math.round(spec.everyMs * 1.5), started);
  };

  const once = async (): Promise<JobOutcome> => {
    const started = Date.now();
    status.running = true;
    status.lastStartedAt = started;
    let outcome: JobOutcome;
    let problem: string | null = null;
    try {
      outcome = (await leaseHeld(started)) ? ((await spec.run(controller.signal)) ?? 'ok') : 'skipped';
    } catch (error) {
      outcome = 'failed';
      problem = error instanceof Error ? error.message : String(error);
      if (problem !== status.lastProblem) said.error({ err: error }, `${spec.name} failed: ${problem}`);
    }
    if (outcome !== 'failed' && status.lastProblem !== null) said.info(`${spec.name} runs again`);
    const ms = Date.now() - started;
    Object.assign(status, { running: false, lastMs: ms, lastOutcome: outcome, lastProblem: problem, runs: status.runs + 1 });
    if (outcome === 'failed') status.failures += 1;
    reg.observe?.(spec.name, outcome, ms);
    await persist(outcome).catch(() => undefined); // a store that is away loses only this row's freshness
    return outcome;
  };

  const persist = async (outcome: JobOutcome) => {
    const store = reg.store;
    const now = Date.now();
    if (!store || (outcome === entry.persistedOutcome && now - entry.persistedAt < PERSIST_EVERY_MS)) return;
    entry.persistedAt = now;
    entry.persistedOutcome = outcome;
    await noteJobRun(store.db, {
      name: spec.name,
      instance: store.instance,
      every_ms: spec.everyMs,
      lease: status.lease,
      last_started_ms: status.lastStartedAt,
      last_ms: status.lastMs,
      last_outcome: outcome,
      last_problem: status.lastProblem,
      next_ms: status.nextRunAt,
      runs: status.runs,
      failures: status.failures,
      updated_ms: now,
    });
  };

  const runNow = (): Promise<JobOutcome> => {
    if (stopped) return Promise.resolve('skipped');
    running ??= once().finally(() => (running = null));
    return running;
  };
  const tick = () => {
    status.nextRunAt = Date.now() + spec.everyMs;
    void runNow();
  };

  let timer: NodeJS.Timeout | null = null;
  const first = setTimeout(() => {
    tick();
    timer = setInterval(tick, spec.everyMs);
    timer.unref();
  }, spec.firstAfterMs ?? 0);
  first.unref();

  const job: Job = {
    name: spec.name,
    runNow,
    // Every caller of stop waits for the one stop: the second does not return while the first still waits.
    stop: () => (stopping ??= stopOnce()),
  };
  async function stopOnce() {
    stopped = true;
    clearTimeout(first);
    if (timer) clearInterval(timer);
    status.nextRunAt = null;
    controller.abort(new Error('the portal is stopping'));
    await running?.catch(() => undefined);
    await Promise.resolve(spec.onStop?.()).catch((error: unknown) => said.warn({ err: error }, `${spec.name} did not stop cleanly`));
    const store = reg.store;
    if (spec.lease === 'one instance' && store) await releaseJobLease(store.db, spec.name, store.instance).catch(() => undefined);
    reg.jobs.delete(entry);
  }
  const entry: Entry = { spec, job, status, persistedAt: 0, persistedOutcome: null };
  reg.jobs.add(entry);
  return job;
}

/** The jobs running in this process, as they last ran. */
export function jobStatus(): JobStatus[] {
  return [...registry().jobs].map((entry) => ({ ...entry.status }));
}

/**
 * Stops the jobs that stop at `phase` (all of them when none is given), each after its running run, waiting
 * at most `withinMs`: a run that ignores its signal (a store call that hangs, say) does not hold the instance
 * up past its grace. Answers the names of the jobs that had not stopped by then, and says them.
 */
export async function stopJobs(phase?: 'drain' | 'close', withinMs = Number.POSITIVE_INFINITY): Promise<string[]> {
  const stopping = [...registry().jobs].filter((entry) => !phase || (entry.spec.stopsAt ?? 'drain') === phase);
  const late = new Set(stopping.map((entry) => entry.spec.name));
  const all = Promise.all(stopping.map((entry) => entry.job.stop().finally(() => late.delete(entry.spec.name))));
  if (!Number.isFinite(withinMs)) return (await all, []);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
  await Promise.race([all, bound]);
  clearTimeout(timer);
  if (late.size > 0) log('jobs').warn({ jobs: [...late] }, `jobs still running after ${withinMs} ms, left behind: ${[...late].join(', ')}`);
  return [...late];
}
