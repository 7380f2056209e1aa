import { afterEach, describe, expect, it } from 'vitest';
import type { CheckContext } from '@/lib/deliveries/check';
import { folderProblem } from '@/lib/deliveries/destinations';
import { deliverySchema, issuesOf, resolveRelative, runFilters } from '@/lib/deliveries/input';
import { checkSchedule, describeSchedule, latestDue, nextRuns } from '@/lib/deliveries/schedule';
import { openSecret, sealSecret, secretBinding, SecretUnreadable } from '@/lib/deliveries/secrets';
import { isPrivateAddress, targetProblem, webhookUrlProblem } from '@/lib/deliveries/targets';
import { claimRun, findDelivery, insertDelivery, listRuns, reapCrashedRuns, recordOutcome } from '@/lib/store/deliveries';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** Deliveries' rules one by one: schedules, relative dates, validation, secrets, targets; the store on both engines. */

const T = Date.parse('2026-11-23T10:17:30Z');

describe('schedules', () => {
  it('accepts five-field cron only, says it in words, and lists the next runs in UTC', () => {
    expect(checkSchedule('0 6 * * 1-5')).toBeNull();
    expect(checkSchedule('*/5 * * * * *')).toMatch(/five fields/);
    expect(checkSchedule('61 * * * *')).toMatch(/not a valid cron expression/);
    expect(describeSchedule('0 6 * * 1-5')).toBe('At 06:00, Monday through Friday (UTC)');
    expect(nextRuns('0 6 * * *', 2, new Date(T))).toEqual(['2026-11-24T06:00:00.000Z', '2026-11-25T06:00:00.000Z']);
  });

  it('finds the latest due time after the last handled one: a missed stretch is one run', () => {
    expect(latestDue('* * * * *', T - 10 * 60_000, T)).toBe(Date.parse('2026-11-23T10:17:00Z'));
    expect(latestDue('0 6 * * *', Date.parse('2026-11-20T06:00:00Z'), T)).toBe(Date.parse('2026-11-23T06:00:00Z'));
    expect(latestDue('0 6 * * *', Date.parse('2026-11-23T06:00:00Z'), T)).toBeNull();
    expect(latestDue('0 0 1 1 *', Date.parse('2025-06-01T00:00:00Z'), T)).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });
});

describe('delivery input', () => {
  it('resolves relative dates at each run, then checks the filters with the one parser', () => {
    expect(resolveRelative('today-7d', T)).toBe('2026-11-16T00:00:00.000Z');
    expect(resolveRelative('today', T)).toBe('2026-11-23T00:00:00.000Z');
    expect(resolveRelative('now-24h', T)).toBe('2026-11-22T10:17:30.000Z');
    expect(resolveRelative('2026-11-01', T)).toBe('2026-11-01');
    expect(runFilters('picks', { sport: 'Tennis', from: 'today-7d', to: 'today+1d' }, T)).toEqual({
      sport: 'Tennis',
      from: '2026-11-16T00:00:00.000Z',
      to: '2026-11-24T00:00:00.000Z',
    });
    expect(() => runFilters('picks', { status: 'maybe' }, T)).toThrow();
    expect(() => runFilters('changes', { kind: 'gone' }, T)).toThrow(/kind must be one of/);
  });

  it('names every wrong field', () => {
    const parsed = deliverySchema.safeParse({
      name: '../x',
      kind: 'everything',
      format: 'xml',
      schedule: 'soon',
      destination: { type: 'webhook', url: 'ftp://x', secret: 'short' },
      colour: 'red',
    });
    expect(parsed.success).toBe(false);
    expect(Object.keys(issuesOf(parsed.error!)).sort()).toEqual(
      ['colour', 'destination.secret', 'destination.url', 'format', 'kind', 'name', 'schedule'].sort(),
    );
    expect(folderProblem('a/../../b')).toMatch(/DELIVERY_ROOT/);
    expect(folderProblem('/etc')).toMatch(/relative/);
    expect(folderProblem('partner/daily')).toBeNull();
  });
});

describe('a delivery checked whole', () => {
  const base = { name: 'Partner feed', kind: 'picks', format: 'jsonl', filters: {}, schedule: '0 6 * * *' };
  const context: CheckContext = { allowPrivate: false, secretKey: 'k'.repeat(40), minIntervalMinutes: 5 };
  const refusal = async (input: unknown, ctx = context) => {
    const { checkDelivery } = await import('@/lib/deliveries/check');
    return checkDelivery(input, null, ctx).then(
      () => null,
      (error: { details?: Record<string, string>; settings?: { setting: string }[] }) => error,
    );
  };

  it('checks the rest of a destination whose one field fails: every problem in one answer (issue 72)', async () => {
    // A 5-character secret and an http URL to a loopback address: both said, with the name and the schedule.
    const hook = await refusal({
      ...base,
      name: '',
      schedule: 'soon',
      destination: { type: 'webhook', url: 'http://127.0.0.1:9/x', secret: 'short' },
    });
    expect(Object.keys(hook!.details!).sort()).toEqual(['destination.secret', 'destination.url', 'name', 'schedule']);
    expect(hook!.details!['destination.url']).toContain('DELIVERY_ALLOW_PRIVATE_TARGETS');
    // A connection that does not read and a table name that is wrong: both at once, in sentences.
    const table = await refusal({ ...base, destination: { type: 'postgres', connection: 'postgres://nope', table: 'Bad-Name' } });
    expect(Object.keys(table!.details!).sort()).toEqual(['destination.connection', 'destination.table']);
    const unresolved = await refusal({
      ...base,
      destination: { type: 'postgres', connection: 'postgres://u:p@db.partner.invalid:5432/d', table: 'Bad-Name' },
    });
    expect(unresolved!.details).toMatchObject({
      'destination.connection': 'names a server that cannot be used: db.partner.invalid does not resolve',
    });
  });

  it('says a missing server key apart from the fields, naming the setting and its document', async () => {
    const keyless = await refusal(
      { ...base, format: 'csv', destination: { type: 'webhook', url: 'https://192.0.2.10/in', secret: 's'.repeat(20) } },
      { ...context, allowPrivate: true, secretKey: null },
    );
    expect(keyless!.details).toEqual({});
    expect(keyless!.settings).toEqual([expect.objectContaining({ setting: 'DELIVERY_SECRET_KEY', doc: 'docs/configuration.md' })]);
  });
});

describe('secrets and targets', () => {
  const sftp = (change: Record<string, unknown> = {}) => ({ type: 'sftp', host: 'sftp.example.com', port: 22, username: 'ana', ...change });

  it('seals secrets so that only the same key opens them, and only for the destination they were entered for', () => {
    const bound = secretBinding(sftp())!;
    const sealed = sealSecret('hunter2-password', 'k'.repeat(32), bound);
    expect(sealed).toMatch(/^v2\./);
    expect(sealed).not.toContain('hunter2');
    expect(sealed).not.toBe(sealSecret('hunter2-password', 'k'.repeat(32), bound)); // a fresh IV each time
    expect(openSecret(sealed, 'k'.repeat(32), bound)).toBe('hunter2-password');
    expect(() => openSecret(sealed, 'j'.repeat(32), bound)).toThrow(SecretUnreadable);
    expect(() => openSecret(`${sealed.slice(0, -2)}AA`, 'k'.repeat(32), bound)).toThrow(SecretUnreadable);
    // Another host, port or user, or no binding at all: the same sealed text opens for none of them.
    for (const other of [sftp({ host: 'evil.example.com' }), sftp({ port: 2222 }), sftp({ username: 'eve' })])
      expect(() => openSecret(sealed, 'k'.repeat(32), secretBinding(other))).toThrow(SecretUnreadable);
    expect(() => openSecret(sealed, 'k'.repeat(32), null)).toThrow(SecretUnreadable);
    const hook = secretBinding({ type: 'webhook', url: 'https://hooks.example.com/a?t=1' })!;
    for (const url of ['https://hooks.example.com/b?t=1', 'https://hooks.example.com/a?t=2', 'https://evil.example.com/a?t=1'])
      expect(() => openSecret(sealSecret('whsec', 'k'.repeat(32), hook), 'k'.repeat(32), secretBinding({ type: 'webhook', url }))).toThrow(
        SecretUnreadable,
      );
    expect(secretBinding({ type: 'directory', folder: 'x' })).toBeNull();
  });

  it('allows only global unicast addresses unless private targets are allowed; webhooks need https', async () => {
    const refused = ['127.0.0.1', '10.1.2.3', '192.168.0.9', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '::127.0.0.1'];
    refused.push('64:ff9b::7f00:1', '2002:7f00:1::', '198.18.0.1', '198.19.255.1', '224.0.0.1', 'ff02::1', '100.64.0.1', '0.0.0.0', '::');
    refused.push('255.255.255.255', 'fe80::1', '2001:db8::1', '192.0.2.1', 'not-an-address');
    for (const address of refused) expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(address), address).toBe(false);
    expect(await targetProblem('127.0.0.1', false)).toMatch(/loopback or private/);
    expect(await targetProblem('localhost', false)).toMatch(/loopback or private/);
    expect(await targetProblem('127.0.0.1', true)).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/x', false)).toBe(
      'must be an https URL (plain http only to a loopback or private target, with DELIVERY_ALLOW_PRIVATE_TARGETS=1)',
    );
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/x', false)).toMatch(/credentials/);
    expect(webhookUrlProblem('https://hooks.example.com/x', false)).toBeNull();
  });
});

describe.each(storeEngines())('the delivery store on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('claims a due time once, reaps crashed runs once, and pauses after three failures in a row', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const db = store.db;
    await insertDelivery(db, {
      id: 'dlv_0000000000000001',
      name: 'One',
      kind: 'picks',
      format: 'csv',
      filters: {},
      schedule: '* * * * *',
      destination: { type: 'directory', folder: '' },
      secret: null,
      createdBy: 'ana@example.com',
      createdAt: new Date(T).toISOString(),
      updatedAt: new Date(T).toISOString(),
      lastDueMs: T,
    });
    const claim = (id: string, instance: string, attempt = 1, dueMs: number | null = T + 60_000) =>
      claimRun(db, { id, deliveryId: 'dlv_0000000000000001', dueMs, trigger: 'schedule', attempt, instance, now: T, leaseMs: 1_000 });
    const [a, b] = await Promise.all([claim('run_a', 'a'), claim('run_b', 'b')]);
    expect([a, b].sort()).toEqual(['busy', 'claimed']); // one claims; the other finds it in flight
    // One run in flight per delivery: another due time, another attempt and run-now all wait for it.
    expect(await claim('run_c', 'c', 2)).toBe('busy');
    expect(await claim('run_m1', 'a', 1, null)).toBe('busy');
    expect((await reapCrashedRuns(db, T + 5_000)).map((run) => run.id)).toEqual([a === 'claimed' ? 'run_a' : 'run_b']);
    expect(await claim('run_a2', 'a')).toBe('taken'); // that due time was had: never twice
    expect(await claim('run_c', 'c', 2)).toBe('claimed'); // attempt 2 of the same due time: its own slot
    await reapCrashedRuns(db, T + 5_000);
    expect(await claim('run_m1', 'a', 1, null)).toBe('claimed'); // run-now runs have no due time
    await reapCrashedRuns(db, T + 5_000);
    expect(await claim('run_m2', 'a', 1, null)).toBe('claimed');
    const reaped = await reapCrashedRuns(db, T + 5_000);
    expect(reaped.map((run) => run.id)).toEqual(['run_m2']);
    expect(await reapCrashedRuns(db, T + 6_000)).toEqual([]);
    expect((await listRuns(db, 'dlv_0000000000000001')).every((run) => run.outcome === 'failed')).toBe(true);

    expect(await recordOutcome(db, 'dlv_0000000000000001', false, 'one')).toEqual({ paused: false });
    expect(await recordOutcome(db, 'dlv_0000000000000001', true, null)).toEqual({ paused: false });
    for (const error of ['a', 'b']) await recordOutcome(db, 'dlv_0000000000000001', false, error);
    expect(await recordOutcome(db, 'dlv_0000000000000001', false, 'the third')).toEqual({ paused: true });
    expect(await findDelivery(db, 'dlv_0000000000000001')).toMatchObject({
      paused: true,
      failures: 3,
      pauseReason: 'Paused after 3 failed runs in a row. Last error: the third',
    });
  });
});

describe('delivery limits', () => {
  it('measure a schedule by its shortest gap, and say which setting refuses it', async () => {
    const { intervalProblem, shortestGapMinutes, tooManyDeliveries } = await import('@/lib/deliveries/limits');
    expect(shortestGapMinutes('* * * * *')).toBe(1);
    expect(shortestGapMinutes('*/15 * * * *')).toBe(15);
    expect(shortestGapMinutes('0,1 * * * *')).toBe(1); // 59 minutes apart, then 1
    expect(shortestGapMinutes('0 6 * * 1-5')).toBe(24 * 60);
    expect(intervalProblem('* * * * *', 1)).toBeNull();
    expect(intervalProblem('0,1 * * * *', 15)).toBe(
      'runs every 1 minute at its most frequent; deliveries may run at most every 15 minutes (DELIVERY_MIN_INTERVAL_MINUTES)',
    );
    expect(intervalProblem('*/15 * * * *', 15)).toBeNull();
    expect(tooManyDeliveries(19, 20)).toBeNull();
    expect(tooManyDeliveries(20, 20)).toMatch(/already own 20 deliveries.*DELIVERY_MAX_PER_USER is 20/);
  });
});
