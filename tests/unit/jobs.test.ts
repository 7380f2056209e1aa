import { afterEach, describe, expect, it } from 'vitest';
import { attachJobStore, jobStatus, registerJob, stopJobs, type Job } from '@/lib/jobs/registry';
import { keepRenewed } from '@/lib/jobs/renewals';
import { flushKept, keptIn, storeOrKeep, untilStored } from '@/lib/jobs/store-retry';
import { createPortalLogger } from '@/lib/log/create.mjs';
import { server } from '@/lib/process-state';
import { claimJobLease, listJobRuns } from '@/lib/store/jobs';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** The job registry (lib/jobs/registry.ts): one timer a job, no overlap, failures said once, stops in two phases, leases in the store. */

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const opened: Store[] = [];
const jobs: Job[] = [];
afterEach(async () => {
  await Promise.all(jobs.splice(0).map((job) => job.stop()));
  await stopJobs();
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
/** The process's logger replaced by one whose messages are kept (what the registry says about failures). */
const logged = () => {
  const lines: string[] = [];
  const capture = createPortalLogger({
    env: { LOG_LEVEL: 'info' },
    destination: { write: (line: string) => void lines.push((JSON.parse(line) as { msg: string }).msg) },
  });
  return { lines, capture };
};

describe('the job registry', () => {
  it('runs a job at once and every period, never two runs of it at a time', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    jobs.push(
      registerJob({
        name: 'test-slow',
        everyMs: 40,
        lease: 'every instance',
        run: async () => {
          running += 1;
          runs += 1;
          most = Math.max(most, running);
          await wait(100); // longer than its period
          running -= 1;
        },
      }),
    );
    await wait(450);
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(5);
    const status = jobStatus().find((s) => s.name === 'test-slow')!;
    expect(status).toMatchObject({ everyMs: 40, lease: 'every instance', failures: 0, lastOutcome: 'ok' });
    expect(status.lastMs).toBeGreaterThanOrEqual(95);
    expect(status.nextRunAt).toBeGreaterThan(Date.now() - 50);
  });

  it('counts a failure, says it once while it lasts, and again when it changes; runs on after it', async () => {
    const said = logged();
    const saved = server.log;
    server.log = said.capture;
    let problem = 'the store is away';
    try {
      const job = registerJob({
        name: 'test-failing',
        everyMs: 30,
        lease: 'every instance',
        run: async () => {
          throw new Error(problem);
        },
      });
      jobs.push(job);
      await wait(200);
      problem = 'something else';
      await wait(100);
    } finally {
      server.log = saved;
    }
    const status = jobStatus().find((s) => s.name === 'test-failing')!;
    expect(status.lastOutcome).toBe('failed');
    expect(status.lastProblem).toBe('something else');
    expect(status.failures).toBe(status.runs);
    expect(status.runs).toBeGreaterThanOrEqual(6);
    expect(said.lines.filter((line) => line.startsWith('test-failing failed'))).toEqual([
      'test-failing failed: the store is away',
      'test-failing failed: something else',
    ]);
  });

  it('stops the loops at drain and what must outlast running work at close, each after its running run', async () => {
    const events: string[] = [];
    const loop = registerJob({
      name: 'test-loop',
      everyMs: 1_000,
      lease: 'every instance',
      run: async (signal) => {
        events.push('loop ran');
        await wait(80);
        events.push(signal.aborted ? 'loop saw the stop' : 'loop ended');
      },
      onStop: () => void events.push('loop stopped'),
    });
    const last = registerJob({
      name: 'test-last',
      everyMs: 1_000,
      firstAfterMs: 1_000,
      lease: 'every instance',
      stopsAt: 'close',
      run: async () => void events.push('last ran'),
      onStop: () => void events.push('last stopped'),
    });
    jobs.push(loop, last);
    await wait(20);
    await stopJobs('drain');
    expect(events).toEqual(['loop ran', 'loop saw the stop', 'loop stopped']);
    expect(jobStatus().map((s) => s.name)).toContain('test-last');
    expect(jobStatus().map((s) => s.name)).not.toContain('test-loop');
    expect(await loop.runNow()).toBe('skipped'); // a stopped job runs no more
    await stopJobs('close');
    expect(events.slice(3)).toEqual(['last stopped']);
    expect(jobStatus().map((s) => s.name)).not.toContain('test-last');
  });

  it('waits for a run that ignores its signal only as long as it is told, and names it', async () => {
    let release = () => {};
    const hung = new Promise<void>((resolve) => (release = resolve));
    jobs.push(registerJob({ name: 'test-hung', everyMs: 60_000, lease: 'every instance', run: () => hung }));
    jobs.push(registerJob({ name: 'test-quick', everyMs: 60_000, lease: 'every instance', run: async () => undefined }));
    await wait(20);
    const before = performance.now();
    expect(await stopJobs('drain', 150)).toEqual(['test-hung']);
    expect(performance.now() - before).toBeLessThan(2_000);
    expect(jobStatus().map((s) => s.name)).toEqual(['test-hung']); // still there, still running
    release();
    expect(await stopJobs('drain', 1_000)).toEqual([]);
    expect(jobStatus()).toEqual([]);
  });

  it('renews each lease kept at its own period until it is released', async () => {
    const renewed: string[] = [];
    const release = keepRenewed(100, async () => void renewed.push('slot'));
    await wait(5_600); // the renewals job ticks every 5 s
    release();
    expect(renewed).toEqual(['slot']);
    await stopJobs('close');
  }, 10_000);
});

describe('the one retry queue (work kept while the store is away)', () => {
  it('keeps what the store refused in order within its lane, writes it when the store answers, and gives up when told to', async () => {
    let away = true;
    const written: string[] = [];
    const write = (what: string) => async () => {
      if (away) throw new Error('connect ECONNREFUSED');
      written.push(what);
      return what;
    };
    const first = await storeOrKeep('entry 1', write('a1'), { lane: 'test-a', payload: 1 });
    expect(first.written).toBe(false);
    // Behind it in its lane: kept without a try, so the lane's order holds even if the store came back.
    away = false;
    const second = await storeOrKeep('entry 2', write('a2'), { lane: 'test-a', payload: 2 });
    expect(second.written).toBe(false);
    expect(keptIn('test-a')).toEqual([1, 2]);
    // Another lane is not held back.
    expect(await untilStored('other', write('b1'), { lane: 'test-b' })).toBe('b1');
    away = true;
    let giveUp = false;
    const given = untilStored('a run’s outcome', write('c1'), { lane: 'test-c', giveUp: () => giveUp });
    await flushKept();
    expect(keptIn('test-a')).toEqual([1, 2]);
    giveUp = true;
    await flushKept();
    await expect(given).rejects.toThrow('ECONNREFUSED');
    away = false;
    await flushKept();
    expect(keptIn('test-a')).toEqual([]);
    expect(written).toEqual(['b1', 'a1', 'a2']);
    expect(await (first.written ? null : first.later)).toBe('a1');
    await stopJobs('close');
  });
});

describe.each(storeEngines())('jobs in the store on $name', (engine) => {
  it('runs a one-instance job only while this instance holds its lease, and keeps each job’s last run', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    attachJobStore({ db: store.db, instance: 'here' });
    // Another instance holds the lease.
    expect(await claimJobLease(store.db, 'test-pruning', 'elsewhere', 60_000)).toBe(true);
    let runs = 0;
    const job = registerJob({
      name: 'test-pruning',
      everyMs: 60_000,
      lease: 'one instance',
      run: async () => void (runs += 1),
    });
    jobs.push(job);
    await wait(100);
    expect(runs).toBe(0);
    expect(jobStatus().find((s) => s.name === 'test-pruning')?.lastOutcome).toBe('skipped');
    // Its lease runs out: this instance takes it.
    await store.db.updateTable('job_leases').set({ until_ms: 0 }).where('name', '=', 'test-pruning').execute();
    expect(await job.runNow()).toBe('ok');
    expect(runs).toBe(1);
    expect(await claimJobLease(store.db, 'test-pruning', 'elsewhere', 60_000)).toBe(false);
    const rows = (await listJobRuns(store.db, 0)).filter((row) => row.name === 'test-pruning');
    expect(rows).toEqual([
      expect.objectContaining({ name: 'test-pruning', instance: 'here', lease: 'one instance', last_outcome: 'ok', runs: 2, failures: 0 }),
    ]);
    // A clean stop gives the lease up.
    await job.stop();
    expect(await claimJobLease(store.db, 'test-pruning', 'elsewhere', 60_000)).toBe(true);
  });
});
