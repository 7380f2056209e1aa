import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queueDeliveryAlert, queueHealthAlerts, queueLicenceChange, queueResettlements, RETRY_AFTER_MS } from '@/lib/alerts';
import { dispatchAlerts } from '@/lib/alerts/dispatch';
import { alertMailer } from '@/lib/alerts/mail';
import { recipientsOf, setSubscription } from '@/lib/alerts/subscriptions';
import { latestAlerts } from '@/lib/store/alerts';
import { latestStates, recordStates, type StateEntry } from '@/lib/store/feed-health';
import { openStore, type Store } from '@/lib/store/open';
import { putUser, updateUser } from '@/lib/store/users';
import { closedPort, startSmtp, type Received } from '../support/smtp';
import { storeEngines } from '../support/store-engines';

/**
 * Alerts of the feed's health through a real SMTP server on loopback (smtp-server): held until the state
 * lasted, one message for the sports of one kind, to enabled admins only; a flap sends nothing; a recovery
 * says how long the trouble lasted; a mail server that is down is tried again later, nothing lost; two
 * dispatchers at once send once. On both store engines.
 */

let inbox: Received[];
let smtpUrl: string;
let closeSmtp: () => Promise<void>;

beforeAll(async () => {
  ({ inbox, url: smtpUrl, close: closeSmtp } = await startSmtp());
});
afterAll(() => closeSmtp());

const T = Date.parse('2026-11-25T12:00:00Z');
const HOLD = 300_000;
const MIN = 60_000;
const entry = (sport: string, state: StateEntry['state'], side: StateEntry['side'], reason: string, at: number): StateEntry => ({
  sport,
  state,
  side,
  reason,
  at,
});

/** What the polling instance does after a poll: logs the changes and queues their alerts. */
async function change(store: Store, entries: StateEntry[]) {
  const previous = await latestStates(store.db);
  await recordStates(store.db, entries);
  await queueHealthAlerts(store.db, entries, previous, HOLD);
}

describe.each(storeEngines())('alerts on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    inbox.length = 0;
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function store() {
    const s = await openStore(await engine.fresh());
    opened.push(s);
    await putUser(s.db, { email: 'boss@example.com', role: 'admin', passwordHash: 'scrypt$x' });
    await putUser(s.db, { email: 'gone@example.com', role: 'admin', passwordHash: 'scrypt$x' });
    await updateUser(s.db, 'gone@example.com', { disabled: true });
    await putUser(s.db, { email: 'viewer@example.com', role: 'viewer', passwordHash: 'scrypt$x' });
    return s;
  }
  const dispatch = (s: Store, now: number, url = smtpUrl) =>
    dispatchAlerts(s.db, {
      now,
      recipients: (alert) => recipientsOf(s.db, alert),
      send: alertMailer({ SMTP_URL: url, ALERT_EMAIL_FROM: 'alerts@portal.example' }),
      portalUrl: 'https://portal.example',
    });

  it('holds an alert until its state lasted, then mails one message for every sport of the kind to enabled admins', async () => {
    const s = await store();
    await change(s, [entry('Football', 'healthy', null, 'ok', T - 60 * MIN), entry('Tennis', 'healthy', null, 'ok', T - 60 * MIN)]);
    await change(s, [
      entry('Football', 'down', 'licence', 'The Picks API refused the partner key (401)', T),
      entry('Tennis', 'down', 'licence', 'The Picks API refused the partner key (401)', T),
    ]);
    expect(await dispatch(s, T + HOLD - 1)).toMatchObject({ sent: 0, dropped: 0, failed: 0 });
    expect(inbox).toHaveLength(0);
    expect(await dispatch(s, T + HOLD)).toMatchObject({ sent: 2, dropped: 0, failed: 0 });
    expect(inbox).toHaveLength(1);
    const [mail] = inbox;
    expect(mail!.from).toBe('alerts@portal.example');
    expect(mail!.to).toEqual(['boss@example.com']);
    expect(mail!.raw).toMatch(/Subject: \[Picks portal\] 2 sports down: the licence/);
    expect(mail!.raw).toContain("- Football: down (licence's side). The Picks API refused the partner key (401).");
    expect(mail!.raw).toContain('https://portal.example/health');
    const sent = (await latestAlerts(s.db)).filter((a) => a.status === 'sent');
    expect(sent.map((a) => `${a.sport} → ${a.recipients.join(', ')}`).sort()).toEqual([
      'Football → boss@example.com',
      'Tennis → boss@example.com',
    ]);
    // Sent once: a later dispatch sends nothing more.
    await dispatch(s, T + 2 * HOLD);
    expect(inbox).toHaveLength(1);

    // The recovery says how long the trouble lasted.
    await change(s, [entry('Football', 'healthy', null, 'Polled and up to date', T + 40 * MIN)]);
    await dispatch(s, T + 40 * MIN + HOLD);
    expect(inbox).toHaveLength(2);
    expect(inbox[1]!.raw).toMatch(/Subject: \[Picks portal\] Football recovered/);
    expect(inbox[1]!.raw).toContain('Before: down for 40 min');
  });

  it('a flapping sport sends nothing: the state did not hold, and a recovery from nothing said is not news', async () => {
    const s = await store();
    await change(s, [entry('Cricket', 'healthy', null, 'ok', T - 60 * MIN)]);
    await change(s, [entry('Cricket', 'degraded', 'upstream', '1 poll in a row failed (UPSTREAM_ERROR)', T)]);
    await change(s, [entry('Cricket', 'healthy', null, 'ok', T + MIN)]);
    await change(s, [entry('Cricket', 'degraded', 'upstream', '1 poll in a row failed (UPSTREAM_ERROR)', T + 2 * MIN)]);
    await change(s, [entry('Cricket', 'healthy', null, 'ok', T + 3 * MIN)]);
    expect(await dispatch(s, T + 3 * MIN + HOLD)).toMatchObject({ sent: 0, dropped: 4, failed: 0 });
    expect(inbox).toHaveLength(0);
    expect((await latestAlerts(s.db)).map((a) => a.error)).toEqual(
      expect.arrayContaining(['the state did not hold', 'nothing was sent about the trouble before it']),
    );
  });

  it('a mail server that is down: tried again later, the error kept, nothing lost; two dispatchers at once send once', async () => {
    const s = await store();
    await change(s, [entry('Golf', 'down', 'upstream', '3 polls in a row failed (UPSTREAM_TIMEOUT)', T)]);
    const down = `smtp://127.0.0.1:${await closedPort()}`;
    expect(await dispatch(s, T + HOLD, down)).toMatchObject({ sent: 0, dropped: 0, failed: 1 });
    const [failed] = await latestAlerts(s.db);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, nextMs: T + HOLD + RETRY_AFTER_MS[0]! });
    expect(failed!.error).toMatch(/ECONNREFUSED|connect/i);
    expect(await dispatch(s, T + HOLD + 1000)).toMatchObject({ sent: 0, dropped: 0, failed: 0 }); // not yet due again
    const retry = T + HOLD + RETRY_AFTER_MS[0]!;
    const [a, b] = await Promise.all([dispatch(s, retry), dispatch(s, retry)]);
    expect(a.sent + b.sent).toBe(1);
    expect(inbox).toHaveLength(1);
    expect((await latestAlerts(s.db))[0]).toMatchObject({ status: 'sent', attempts: 2, error: null });
  });

  it('goes to whoever chose its kind: admins unless they opt out, others only if they opt in', async () => {
    const s = await store();
    await setSubscription(s.db, 'viewer@example.com', ['sport.down']);
    await setSubscription(s.db, 'boss@example.com', ['sport.recovered']);
    await change(s, [entry('Golf', 'down', 'upstream', '3 polls in a row failed (UPSTREAM_ERROR)', T)]);
    await dispatch(s, T + HOLD);
    expect(inbox.map((m) => m.to)).toEqual([['viewer@example.com']]);
  });

  it('a change of the licensed scope is mailed at once, saying what was gained and lost', async () => {
    const s = await store();
    const scope = { sports: ['Football', 'Tennis'], leagues: null, from: null, to: '2027-05-24', contentMode: 'full', channels: ['web'] };
    await queueLicenceChange(s.db, { at: T, before: scope, after: { ...scope, sports: ['Football', 'Golf'], to: '2027-06-30' } });
    expect(await dispatch(s, T)).toMatchObject({ sent: 1, dropped: 0, failed: 0 });
    expect(inbox[0]!.raw).toMatch(/Subject: \[Picks portal\] licence changed/);
    expect(inbox[0]!.raw).toContain('The licensed scope changed: sports: gained Golf; lost Tennis; to: 2027-05-24 → 2027-06-30');
  });

  it('a delivery’s failed run and its recovery are events: mailed when they happen, without a hold', async () => {
    const s = await store();
    await queueDeliveryAlert(s.db, { delivery: 'Daily CSV', ok: true, failuresBefore: 0, paused: false, error: null, at: T }); // nothing to say
    await queueDeliveryAlert(s.db, {
      delivery: 'Daily CSV',
      ok: false,
      failuresBefore: 0,
      paused: false,
      error: 'UPSTREAM_ERROR: 502',
      at: T,
    });
    expect(await dispatch(s, T)).toMatchObject({ sent: 1, dropped: 0, failed: 0 });
    await queueDeliveryAlert(s.db, { delivery: 'Daily CSV', ok: true, failuresBefore: 1, paused: false, error: null, at: T + MIN });
    expect(await dispatch(s, T + MIN)).toMatchObject({ sent: 1, dropped: 0, failed: 0 });
    expect(inbox.map((m) => /Subject: (.*)/.exec(m.raw)![1])).toEqual([
      '[Picks portal] delivery Daily CSV failed',
      '[Picks portal] delivery Daily CSV delivering again',
    ]);
    expect(inbox[1]!.raw).toContain('Delivered again after 1 failed run');
  });

  it('settled results that changed are one alert naming them', async () => {
    const s = await store();
    await queueResettlements(s.db, [], T); // nothing found, nothing said
    await queueResettlements(
      s.db,
      [
        { id: 'pk:1', sport: 'Football', was: 'win', now: 'loss' },
        { id: 'pk:2', sport: 'Tennis', was: 'loss', now: 'void' },
      ],
      T,
    );
    expect(await dispatch(s, T)).toMatchObject({ sent: 1, dropped: 0, failed: 0 });
    expect(inbox[0]!.raw).toMatch(/Subject: \[Picks portal\] 2 records re-settled/);
    expect(inbox[0]!.raw).toContain('pk:1 (Football): win → loss; pk:2 (Tennis): loss → void');
  });

  it('without SMTP_URL alerts are kept in the log, unsent, saying why', async () => {
    const s = await store();
    await change(s, [entry('Golf', 'down', 'portal', 'No instance is polling the feed', T)]);
    await dispatchAlerts(s.db, {
      now: T + HOLD,
      recipients: (alert) => recipientsOf(s.db, alert),
      send: null,
      portalUrl: 'https://portal.example',
    });
    expect(await latestAlerts(s.db)).toEqual([
      expect.objectContaining({ kind: 'portal.not-polling', status: 'unsent', error: 'no SMTP_URL is set: kept here, not mailed' }),
    ]);
  });
});
