import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queueLicenceChange } from '@/lib/alerts';
import { checkAuditTrail } from '@/lib/alerts/audit-check';
import { sendDigests } from '@/lib/alerts/digest';
import { dispatchAlerts } from '@/lib/alerts/dispatch';
import { alertMailer } from '@/lib/alerts/mail';
import { alertsAnswer } from '@/lib/alerts/log';
import { portalDocument } from '@/lib/openapi/portal';
import { answerChecker } from '../support/openapi-check';
import { recipientsOf, setSubscription } from '@/lib/alerts/subscriptions';
import { channelSender, checkWebhook, postAlerts, webhookView } from '@/lib/alerts/webhooks';
import { watchPolling } from '@/lib/feed-health/watchdog';
import { listenForAlerts } from '@/lib/alerts/listen';
import { listWebhooks, latestDigests, saveWebhook, sendsOf, type AlertWebhook } from '@/lib/store/alert-channels';
import { latestAlerts } from '@/lib/store/alerts';
import { appendAudit, type AuditInput } from '@/lib/store/audit';
import { recordStates, stateHistory } from '@/lib/store/feed-health';
import { openStore, type Store } from '@/lib/store/open';
import { putUser } from '@/lib/store/users';
import { closedPort, subjectOf, type Received } from '../support/smtp';
import { storeEngines } from '../support/store-engines';
import { startAlertChannels, type Hit } from '../support/webhook-receiver';
import { receiverAccepts } from '../support/webhook-signature';

/**
 * The alerts' other channels and watchers, on both store engines, through real servers on loopback: webhook
 * receivers that check the signature as a partner would (from the documented rule), a chat hook, a target
 * that fails and is retried on its own; daily digests through a real SMTP server, once a day across
 * dispatchers; the watchdog that says nobody polls, once between two instances; the audit trail's check.
 */

const T = Date.parse('2026-11-25T12:00:00Z');
const MIN = 60_000;
const HOLD = 300_000;
const SECRET_KEY = 'alert-channels-test-key-0123456789abcdef';
const RECEIVER_SECRET = 'receiver-secret-0123456789';

let hits: Hit[] = [];
let base: string;
let inbox: Received[];
let smtpUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  listenForAlerts();
  ({ inbox, smtpUrl, hits, base, close } = await startAlertChannels((path) => (path === '/fail' ? 500 : 200)));
});
afterAll(() => close());

const context = { secretKey: SECRET_KEY, allowPrivate: true };
const described = answerChecker(portalDocument());
/** GET /api/alerts's answer from this store, as the portal's OpenAPI document says it is (null: it is). */
const logProblem = async (s: Store) => described('GET', '/api/alerts', 200, await alertsAnswer(s.db), 'application/json');
const hitsOn = (path: string) => hits.filter((h) => h.path === path);

describe.each(storeEngines())('alert channels on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    hits.length = 0;
    inbox.length = 0;
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  async function store() {
    const s = await openStore(await engine.fresh());
    opened.push(s);
    await putUser(s.db, { email: 'boss@example.com', role: 'admin', passwordHash: 'scrypt$x' });
    await putUser(s.db, { email: 'digest@example.com', role: 'viewer', passwordHash: 'scrypt$x' });
    return s;
  }
  async function hook(s: Store, input: Record<string, unknown>): Promise<AlertWebhook> {
    const made = await checkWebhook({ kinds: ['licence.changed'], ...input }, null, 'boss@example.com', context);
    await saveWebhook(s.db, made);
    return made;
  }
  const dispatch = (s: Store, now: number, smtp = smtpUrl) =>
    dispatchAlerts(s.db, {
      now,
      recipients: (alert) => recipientsOf(s.db, alert),
      send: alertMailer({ SMTP_URL: smtp, ALERT_EMAIL_FROM: 'alerts@portal.example' }),
      portalUrl: 'https://portal.example',
      webhooks: {
        list: () => listWebhooks(s.db),
        post: channelSender({
          ...context,
          portalUrl: 'https://portal.example',
          send: alertMailer({ SMTP_URL: smtp, ALERT_EMAIL_FROM: 'alerts@portal.example' }),
        }),
      },
    });
  const scopeChange = (s: Store, at: number) =>
    queueLicenceChange(s.db, {
      at,
      before: { sports: ['Football', 'Tennis'], leagues: [], from: null, to: null, contentMode: 'full', channels: ['web'] },
      after: { sports: ['Football'], leagues: [], from: null, to: null, contentMode: 'full', channels: ['web'] },
    });

  it('posts signed JSON a receiver verifies and a chat payload; a failing target is retried on its own, then marked failed', async () => {
    const s = await store();
    await hook(s, { name: 'Ops', url: `${base}/signed`, format: 'signed', secret: RECEIVER_SECRET });
    await hook(s, { name: 'Chat', url: `${base}/chat?token=abc`, format: 'chat' });
    await hook(s, { name: 'Broken', url: `${base}/fail`, format: 'signed', secret: RECEIVER_SECRET });
    await hook(s, { name: 'Ops list', address: 'ops-list@partner.example', format: 'email' });
    await scopeChange(s, T);

    expect(await dispatch(s, T)).toMatchObject({ sent: 1, webhooksSent: 3, webhooksFailed: 1 });
    // The email and the shared address go out side by side: in either order.
    expect(inbox.map((m) => [subjectOf(m), m.to.join()]).sort()).toEqual([
      ['[Picks portal] licence changed', 'boss@example.com'],
      ['[Picks portal] licence changed', 'ops-list@partner.example'],
    ]);
    const [signed] = hitsOn('/signed');
    expect(receiverAccepts(RECEIVER_SECRET, signed!.headers, signed!.body)).toBe(true);
    expect(receiverAccepts('another-secret-0123456789', signed!.headers, signed!.body)).toBe(false);
    expect(receiverAccepts(RECEIVER_SECRET, signed!.headers, Buffer.from(signed!.body.toString().replace('Tennis', 'Cricket')))).toBe(
      false,
    );
    expect(signed!.headers['x-picks-event']).toBe('licence.changed');
    const body = JSON.parse(signed!.body.toString()) as { event: string; alerts: { kind: string; subject: string; reason: string }[] };
    expect(body.event).toBe('licence.changed');
    expect(body.alerts).toEqual([expect.objectContaining({ kind: 'licence.changed', subject: 'licence' })]);
    expect(body.alerts[0]!.reason).toContain('Tennis');
    const chat = JSON.parse(hitsOn('/chat?token=abc')[0]!.body.toString()) as { text: string };
    expect(Object.keys(chat)).toEqual(['text']);
    expect(chat.text).toMatch(/^\[Picks portal\] licence changed\n/);
    expect(hitsOn('/chat?token=abc')[0]!.headers['x-picks-signature']).toBeUndefined(); // no secret, no signature

    const [alert] = await latestAlerts(s.db);
    const broken = (await sendsOf(s.db, [alert!.id])).find((x) => x.status !== 'sent')!;
    expect(broken).toMatchObject({ status: 'pending', attempts: 1, error: 'the webhook answered HTTP 500', nextMs: T + MIN });

    // Not due yet: nothing; then retried after 1, 5, 15 and 60 minutes, alone, and marked failed after the last.
    expect(await dispatch(s, T + MIN - 1)).toMatchObject({ webhooksSent: 0, webhooksFailed: 0 });
    let at = T;
    for (const wait of [MIN, 5 * MIN, 15 * MIN, 60 * MIN]) {
      at += wait;
      expect(await dispatch(s, at)).toMatchObject({ sent: 0, webhooksSent: 0, webhooksFailed: 1 });
    }
    expect(hitsOn('/fail')).toHaveLength(5);
    expect(hitsOn('/signed')).toHaveLength(1);
    expect(inbox).toHaveLength(2);
    expect((await sendsOf(s.db, [alert!.id])).find((x) => x.webhookId === broken.webhookId)).toMatchObject({
      status: 'failed',
      attempts: 5,
    });
    await dispatch(s, at + 2 * 60 * MIN);
    expect(hitsOn('/fail')).toHaveLength(5);
    // The notification log says it all, in the documented shape: the email sent, each webhook's outcome.
    const [entry] = (await alertsAnswer(s.db)).data;
    expect(entry).toMatchObject({ id: alert!.id, kind: 'licence.changed', status: 'sent', channel: 'email' });
    expect(entry!.webhooks.map((w) => `${w.webhook} ${w.status} ${w.attempts}`).sort()).toEqual([
      'Broken failed 5',
      'Chat sent 1',
      'Ops list sent 1',
      'Ops sent 1',
    ]);
    expect(await logProblem(s)).toBeNull();
  });

  it('two dispatchers at once post to each webhook once', async () => {
    const s = await store();
    await hook(s, { name: 'Ops', url: `${base}/signed`, format: 'signed', secret: RECEIVER_SECRET });
    await hook(s, { name: 'Chat', url: `${base}/chat`, format: 'chat' });
    await scopeChange(s, T);
    await Promise.all([dispatch(s, T), dispatch(s, T), dispatch(s, T)]);
    expect(hitsOn('/signed')).toHaveLength(1);
    expect(hitsOn('/chat')).toHaveLength(1);
    expect(inbox).toHaveLength(1);
  });

  it('refuses a wrong webhook naming every field, keeps the secret bound to its URL, and never shows either', async () => {
    const s = await store();
    const refusal = (
      input: unknown,
      existing: AlertWebhook | null = null,
      ctx: typeof context | { secretKey: null; allowPrivate: boolean } = context,
    ) =>
      checkWebhook(input, existing, 'boss@example.com', ctx).then(
        () => null,
        (error: { details?: Record<string, string> }) => error.details ?? {},
      );
    expect(await refusal({ name: '', url: 'ftp://x', format: 'xml', kinds: ['nope'] })).toEqual({
      name: 'is required',
      url: 'must be an http or https URL',
      format: expect.stringContaining('"signed"'),
      kinds: expect.stringContaining('"nope" is not an alert kind'),
    });
    const good = { name: 'Ops', format: 'signed', kinds: ['sport.down'], secret: RECEIVER_SECRET };
    const publicOnly = { secretKey: SECRET_KEY, allowPrivate: false };
    expect(await refusal({ ...good, url: 'http://198.51.100.7/hook' }, null, publicOnly)).toEqual({
      url: 'must be an https URL (plain http only to a loopback or private target, with DELIVERY_ALLOW_PRIVATE_TARGETS=1)',
    });
    expect((await refusal({ ...good, url: 'https://127.0.0.1/hook' }, null, publicOnly))?.url).toContain('not on the public internet');
    expect(await refusal({ ...good, url: `${base}/x`, secret: undefined })).toEqual({ secret: expect.stringContaining('is needed') });
    // A server without a key: said as the setting, apart from the fields (none of which is wrong).
    const keyless = await checkWebhook({ ...good, url: `${base}/x` }, null, 'boss@example.com', {
      secretKey: null,
      allowPrivate: true,
    }).catch((error: { details?: Record<string, string>; settings?: { setting: string }[] }) => error);
    expect(keyless).toMatchObject({ details: {}, settings: [{ setting: 'DELIVERY_SECRET_KEY', doc: 'docs/configuration.md' }] });
    const saved = await hook(s, { ...good, url: `${base}/signed?key=private` });
    expect(await refusal({ url: `${base}/elsewhere` }, saved)).toEqual({ secret: expect.stringContaining('is bound to the URL') });
    // A sealed secret carried to another URL cannot be opened (it is bound to the one it was entered for).
    await expect(
      postAlerts({ ...saved, url: `${base}/elsewhere` }, [], { ...context, portalUrl: 'https://portal.example', now: T }),
    ).rejects.toThrow(/could not be opened/);
    // A shared address: an email address, no URL and no secret.
    expect(await refusal({ name: 'List', format: 'email', address: 'not an address', kinds: ['sport.down'] })).toEqual({
      address: 'must be an email address',
    });
    expect(await refusal({ name: 'List', format: 'email', url: `${base}/x`, secret: RECEIVER_SECRET, kinds: ['sport.down'] })).toEqual({
      url: 'is not used by the "email" format: give the address',
      secret: 'is not used by the "email" format',
      address: 'is needed for the "email" format',
    });
    const view = JSON.stringify(webhookView(saved));
    expect(view).not.toContain('private');
    expect(view).not.toContain(RECEIVER_SECRET);
    expect(webhookView(saved)).toMatchObject({ url: `${base}/…`, signed: true });
  });

  it('sends each digest reader one email a day with their kinds, an all-quiet one too, once across dispatchers, retried when SMTP is down', async () => {
    const s = await store();
    await setSubscription(s.db, 'digest@example.com', ['licence.changed'], 'digest', new Date(T));
    await scopeChange(s, T);
    await dispatch(s, T); // the alert goes out at once to whoever takes each alert: the admin, not the digest reader
    expect(inbox.map((m) => m.to)).toEqual([['boss@example.com']]);
    inbox.length = 0;

    const nextDay7 = Date.parse('2026-11-26T07:00:30Z');
    const digests = (now: number, smtp = smtpUrl) =>
      sendDigests(s.db, {
        now,
        hour: 7,
        send: alertMailer({ SMTP_URL: smtp, ALERT_EMAIL_FROM: 'alerts@portal.example' }),
        portalUrl: 'https://portal.example',
      });
    expect(await digests(nextDay7 - MIN)).toEqual({ sent: 0, failed: 0 }); // before the hour
    const both = await Promise.all([digests(nextDay7), digests(nextDay7)]);
    expect(both.map((r) => r.sent).sort()).toEqual([0, 1]);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.to).toEqual(['digest@example.com']);
    expect(subjectOf(inbox[0]!)).toBe('[Picks portal] Daily digest 2026-11-26: 1 alert');
    expect(inbox[0]!.raw).toContain('12:00 UTC licence.changed: licence, changed');
    expect(await digests(nextDay7 + 60 * MIN)).toEqual({ sent: 0, failed: 0 }); // once a day
    // Someone who chooses the digest after the day's hour has passed gets their first one the next day.
    await setSubscription(s.db, 'boss@example.com', ['licence.changed'], 'digest', new Date(nextDay7 + 2 * 60 * MIN));
    expect(await digests(nextDay7 + 3 * 60 * MIN)).toEqual({ sent: 0, failed: 0 });
    await setSubscription(s.db, 'boss@example.com', ['licence.changed'], 'each', new Date(nextDay7 + 3 * 60 * MIN));

    // The next day: nothing happened; the mail server is down, then back.
    const day3 = Date.parse('2026-11-27T07:00:00Z');
    expect(await digests(day3, `smtp://127.0.0.1:${await closedPort()}`)).toEqual({ sent: 0, failed: 1 });
    const [failed] = await latestDigests(s.db);
    expect(failed).toMatchObject({ day: '2026-11-27', status: 'pending', attempts: 1, nextMs: day3 + MIN });
    expect(await digests(day3 + MIN)).toEqual({ sent: 1, failed: 0 });
    expect(subjectOf(inbox[1]!)).toBe('[Picks portal] Daily digest 2026-11-27: all quiet');
    expect(inbox[1]!.raw).toContain('No alert in the 24 hours before 2026-11-27');
    expect((await latestDigests(s.db))[0]).toMatchObject({ status: 'sent', attempts: 2, alerts: 0 });
    expect((await alertsAnswer(s.db)).digests.map((d) => `${d.day} ${d.email} ${d.status}`)).toEqual([
      '2026-11-27 digest@example.com sent',
      '2026-11-26 digest@example.com sent',
    ]);
    expect(await logProblem(s)).toBeNull();
  });

  it('the watchdog logs "nobody polls" once between two instances, and it is alerted once', async () => {
    const s = await store();
    await recordStates(s.db, [
      { sport: 'Football', state: 'healthy', side: null, reason: 'ok', at: T - 60 * MIN },
      { sport: 'Tennis', state: 'healthy', side: null, reason: 'ok', at: T - 60 * MIN },
    ]);
    await s.db
      .updateTable('change_feed')
      .set({ complete_ms: T - 20 * MIN, holder: 'gone', lease_expires: T - 15 * MIN })
      .execute();
    const watch = (now: number) => watchPolling(s.db, { pollMs: 5 * MIN, holdMs: HOLD, now });
    const logged = await Promise.all([watch(T), watch(T)]);
    expect(logged.sort()).toEqual([0, 2]);
    const down = (await stateHistory(s.db, T)).filter((e) => e.at === T);
    expect(down.map((e) => `${e.sport} ${e.state} ${e.side} ${e.reason}`).sort()).toEqual([
      'Football down portal No instance has polled the feed for 20 min',
      'Tennis down portal No instance has polled the feed for 20 min',
    ]);
    expect(await watch(T + MIN)).toBe(0); // the same state: nothing more
    await dispatch(s, T + HOLD);
    expect(inbox.map(subjectOf)).toEqual(['[Picks portal] 2 sports down: no instance polling']);

    // An instance holding the lease: nothing is said, however old the last poll.
    const fresh = await store();
    await fresh.db
      .updateTable('change_feed')
      .set({ complete_ms: T - 20 * MIN, holder: 'alive', lease_expires: T + MIN })
      .execute();
    await recordStates(fresh.db, [{ sport: 'Golf', state: 'healthy', side: null, reason: 'ok', at: T - 60 * MIN }]);
    expect(await watchPolling(fresh.db, { pollMs: 5 * MIN, holdMs: HOLD, now: T })).toBe(0);
  });

  it('checks the audit trail in turn and alerts once per distinct failure', async () => {
    const s = await store();
    const entry = (i: number): AuditInput => ({
      actor: 'ana@example.com',
      role: 'editor',
      action: 'export.picks',
      target: `picks-${i}.csv`,
      filters: null,
      outcome: 'complete',
      errorCode: null,
      records: i,
      bytes: i,
      sha256: null,
      durationMs: 1,
      requestIds: [],
      address: null,
      licence: null,
    });
    for (let i = 1; i <= 4; i += 1) await appendAudit(s.db, entry(i));
    const check = (now: number) => checkAuditTrail(s.db, { now, everyMs: 60 * MIN });
    expect(await check(T)).toBe('ok');
    expect(await check(T + MIN)).toBe('skipped'); // not its turn yet
    await s.db.updateTable('audit_log').set({ actor: 'mallory@example.com' }).where('seq', '=', 2).execute();
    expect(await check(T + 61 * MIN)).toBe('failed');
    expect(await check(T + 122 * MIN)).toBe('failed');
    const alerts = (await latestAlerts(s.db)).filter((a) => a.kind === 'audit.failed');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.reason).toContain('Entry 2: its content was changed');
    await dispatch(s, T + 122 * MIN);
    expect(inbox.map(subjectOf)).toEqual(['[Picks portal] audit trail failed its check']);
    expect(await checkAuditTrail(s.db, { now: T, everyMs: 0 })).toBe('skipped'); // AUDIT_VERIFY_HOURS=0: never
  });
});
