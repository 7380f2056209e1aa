import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queueDeliveryAlert } from '@/lib/alerts';
import { sendDigests } from '@/lib/alerts/digest';
import { dispatchAlerts } from '@/lib/alerts/dispatch';
import { alertMailer } from '@/lib/alerts/mail';
import { recipientsOf, setSubscription, subscriptions, ALERT_KINDS } from '@/lib/alerts/subscriptions';
import { alertsIn, queueAlerts } from '@/lib/store/alerts';
import { openStore, type Store } from '@/lib/store/open';
import { addUsage, insertToken, type ApiToken } from '@/lib/store/tokens';
import { checkTokens } from '@/lib/alerts/token-check';
import { putUser, updateUser } from '@/lib/store/users';
import { deliveryMaker } from '../support/new-delivery';
import { startSmtp, type Received } from '../support/smtp';
import { storeEngines } from '../support/store-engines';

/**
 * Alerts reach only people who may see what they say (the one rule for who may act, lib/auth/principal.ts),
 * through a real SMTP server on loopback, on both store engines: a viewer's stored choice of every kind
 * yields only the kinds a viewer may open; a token's alert goes to admins and its owner, not to other
 * editors; a delivery's likewise; a demo account (refused off the sandbox) and a disabled one receive nothing.
 */

let inbox: Received[];
let smtpUrl: string;
let closeSmtp: () => Promise<void>;
beforeAll(async () => {
  ({ inbox, url: smtpUrl, close: closeSmtp } = await startSmtp());
});
afterAll(() => closeSmtp());

const T = Date.parse('2026-11-25T12:00:00Z');

/** An API token of Ana's, 1,000 records a day. */
const anasToken = (id: string, name: string): ApiToken => ({
  id,
  name,
  owner: 'ana@example.com',
  ownerSinceMs: T - 1000,
  prefix: 'pvt_abcdef',
  scope: { content: ['picks'], sports: [], leagues: [], from: null, to: null },
  expiresMs: T + 30 * 86_400_000,
  ratePerMinute: 60,
  dailyRecords: 1000,
  createdMs: T - 1000,
  createdBy: 'ana@example.com',
  updatedMs: T - 1000,
  revokedMs: null,
  revokedBy: null,
});
const everything = [...ALERT_KINDS];

describe.each(storeEngines())('alert recipients on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    inbox.length = 0;
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function store() {
    const s = await openStore(await engine.fresh());
    opened.push(s);
    const people: [string, string][] = [
      ['boss@example.com', 'admin'],
      ['viewer@example.com', 'viewer'],
      ['ana@example.com', 'editor'],
      ['ben@example.com', 'editor'],
      ['gone@example.com', 'editor'],
    ];
    for (const [email, role] of people) await putUser(s.db, { email, role, passwordHash: 'scrypt$x' });
    await putUser(s.db, { email: 'admin@demo.picks.test', role: 'admin', passwordHash: 'scrypt$x', demo: true });
    await updateUser(s.db, 'gone@example.com', { disabled: true });
    // Choices stored before the rule (or written straight to the store): every kind, by everyone.
    for (const [email] of [...people, ['admin@demo.picks.test']]) await setSubscription(s.db, email!, everything);
    return s;
  }
  const dispatch = (s: Store, now: number) =>
    dispatchAlerts(s.db, {
      now,
      recipients: (alert) => recipientsOf(s.db, alert),
      send: alertMailer({ SMTP_URL: smtpUrl, ALERT_EMAIL_FROM: 'alerts@portal.example' }),
      portalUrl: 'https://portal.example',
    });

  it('keeps only the kinds each role may open, and nobody the rule refuses', async () => {
    const s = await store();
    const byEmail = new Map((await subscriptions(s.db)).map((sub) => [sub.email, sub.kinds]));
    expect([...byEmail.keys()].sort()).toEqual(['ana@example.com', 'ben@example.com', 'boss@example.com', 'viewer@example.com']);
    expect(byEmail.get('viewer@example.com')!.some((k) => k.startsWith('token.') || k.startsWith('delivery.'))).toBe(false);
    expect(byEmail.get('viewer@example.com')).not.toContain('audit.failed');
    expect(byEmail.get('ana@example.com')).toEqual(expect.arrayContaining(['token.quota', 'delivery.failed']));
    expect(byEmail.get('ana@example.com')).not.toContain('audit.failed');
    expect(byEmail.get('boss@example.com')).toEqual(everything);
  });

  it("sends a token's alert to admins and its owner, a delivery's to admins and its owner, a sport's to every role", async () => {
    const s = await store();
    await insertToken(s.db, anasToken('tok_00000000000a', 'Ana system'), 'hash-a');
    const newDelivery = deliveryMaker(
      () => s.db,
      (n) => ({ name: `Ben nightly ${n}`, kind: 'picks', format: 'csv', filters: {}, destination: { type: 'directory', folder: 'ben' } }),
      { now: T },
    );
    await newDelivery({ createdBy: 'ben@example.com' });
    const base = { side: null, detail: null, createdMs: T, dueMs: T };
    await queueAlerts(s.db, [
      { ...base, kind: 'token.quota', sport: 'token Ana system (tok_00000000000a)', state: 'over quota', reason: 'Read its quota' },
      { ...base, kind: 'licence.changed', sport: 'licence', state: 'changed', reason: 'Tennis added' },
    ]);
    await queueDeliveryAlert(s.db, {
      delivery: 'Ben nightly 1',
      ok: false,
      failuresBefore: 0,
      paused: false,
      error: 'DELIVERY_FAILED: x',
      at: T,
    });
    await dispatch(s, T + 1000);
    const got = (email: string) => inbox.filter((mail) => mail.to.includes(email)).map((mail) => /Subject: (.*)/.exec(mail.raw)![1]);
    expect(got('boss@example.com')).toHaveLength(3);
    expect(got('ana@example.com').join('\n')).toMatch(/token Ana system/);
    expect(got('ana@example.com').join('\n')).not.toMatch(/Ben nightly/);
    expect(got('ben@example.com').join('\n')).toMatch(/Ben nightly/);
    expect(got('ben@example.com').join('\n')).not.toMatch(/token Ana/);
    expect(got('viewer@example.com')).toHaveLength(1); // the licence change only
    expect(got('viewer@example.com')[0]).not.toMatch(/token|delivery|Ben/);
    expect(got('gone@example.com')).toEqual([]);
    expect(got('admin@demo.picks.test')).toEqual([]);
    expect(inbox.map((mail) => mail.raw).join('\n')).not.toMatch(/admin@demo\.picks\.test|gone@example\.com/);
  });

  it('warns a token’s owner (by default) and admins at 75 % and 90 % of its daily records, each once, before the 429', async () => {
    const s = await store();
    await s.db.deleteFrom('alert_subscriptions').where('email', '=', 'ana@example.com').execute(); // Ana has not chosen
    const token = anasToken('tok_00000000000b', 'Ana loader');
    await insertToken(s.db, token, 'hash-b');
    const use = (records: number) =>
      addUsage(s.db, token.id, '2026-11-25', {
        requests: 1,
        records,
        bytes: 1,
        clientErrors: 0,
        throttled: 0,
        lastMs: T,
        lastAddress: null,
      });
    await use(740);
    await checkTokens(s.db, T);
    expect(await alertsIn(s.db, 'held')).toEqual([]); // 74 %: nothing yet
    await use(20);
    await checkTokens(s.db, T + 1_000);
    await checkTokens(s.db, T + 2_000); // another instance, or the next check: still one
    await dispatch(s, T + 3_000);
    // Headers unfolded (a long subject is folded onto the next line).
    const subjects = (email: string) =>
      inbox
        .filter((mail) => mail.to.includes(email))
        .map((mail) => /Subject: ([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/.exec(mail.raw)![1]!.replace(/\r?\n(?=[ \t])/g, ''));
    expect(subjects('ana@example.com')).toEqual(['[Picks portal] token Ana loader (tok_00000000000b) at 75 % of its quota']);
    expect(subjects('boss@example.com')).toEqual(['[Picks portal] token Ana loader (tok_00000000000b) at 75 % of its quota']);
    expect(subjects('ben@example.com')).toEqual([]);
    expect(inbox.find((mail) => mail.to.includes('ana@example.com'))!.raw).toContain(
      'Read 760 of its 1,000 records today (UTC), 75 % of its quota',
    );
    await use(160);
    await checkTokens(s.db, T + 4_000);
    await dispatch(s, T + 5_000);
    expect(subjects('ana@example.com').at(-1)).toBe('[Picks portal] token Ana loader (tok_00000000000b) at 90 % of its quota');
    await use(80);
    await checkTokens(s.db, T + 6_000);
    await dispatch(s, T + 7_000);
    expect(subjects('ana@example.com')).toHaveLength(3);
    expect(subjects('ana@example.com').at(-1)).toBe('[Picks portal] token Ana loader (tok_00000000000b) over its daily quota');
  });

  it("a viewer's daily digest leaves out what a viewer may not open", async () => {
    const s = await store();
    await setSubscription(s.db, 'viewer@example.com', everything, 'digest', new Date(T - 86_400_000));
    const at = Date.parse('2026-11-25T03:00:00Z'); // inside the day before the digest's moment (06:00 UTC)
    const base = { side: null, detail: null, createdMs: at, dueMs: at };
    await queueAlerts(s.db, [
      { ...base, kind: 'token.unused', sport: 'token Ana system (tok_00000000000a)', state: 'unused', reason: 'Never used' },
      { ...base, kind: 'licence.changed', sport: 'licence', state: 'changed', reason: 'Tennis added' },
    ]);
    await dispatch(s, at); // each goes out as it happens to whoever takes it so; the digest reader gets the day's in one
    inbox.length = 0;
    const mailer = alertMailer({ SMTP_URL: smtpUrl, ALERT_EMAIL_FROM: 'alerts@portal.example' });
    await sendDigests(s.db, { now: T, hour: 6, send: mailer, portalUrl: 'https://portal.example' });
    const digest = inbox.find((mail) => mail.to.includes('viewer@example.com'));
    expect(digest?.raw).toMatch(/Tennis added/);
    expect(digest?.raw).not.toMatch(/token|tok_/);
  });
});
