import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import pg from 'pg';
import { needPostgres, startPostgres, type TestPostgres } from '../support/postgres';
import { startSmtp, subjectOf, type Received } from '../support/smtp';
import { receiverAccepts } from '../support/webhook-signature';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { type Instance } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { AlertsPage, FeedHealthPage } from '../support/pages';

/**
 * Feed health and its alerts end to end: two portals on one PostgreSQL (`npm start`) poll a sandbox of this
 * spec's own, which its test hooks drive into each state — the key refused (401), access lost (403), an
 * outage (503), a 429 storm, a pick overdue in its lifecycle, silence beyond an agreed cadence, a licence
 * that loses a sport — and back. Each state is read from GET /api/feed-health (state, side, reason), and its
 * alert arrives exactly once at a real SMTP server and at a webhook receiver that checks the signature,
 * however many instances there are. Last, both pollers stop and a third instance that does not poll says so.
 */

const SANDBOX_PORT = 4232;
const SANDBOX = `http://127.0.0.1:${SANDBOX_PORT}`;
const PORTS = [3222, 3223, 3224] as const;
const KEY = E2E.sandboxKey;
const WEBHOOK_SECRET = 'alerting-webhook-secret-0123456789';
const HOLD_S = 3;

let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let pgServer: TestPostgres | null = null;
let client: pg.Client;
let inbox: Received[] = [];
let closeSmtp: () => Promise<void> = async () => undefined;
const posts: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
let receiver: Server;
const instances: Instance[] = [];
let admin = '';
let dbUrl = '';
let smtpUrl = '';

const hook = async (name: string, body: unknown) => {
  const res = await fetch(`${SANDBOX}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, `hook ${name}`).toBe(200);
  return res.json();
};

interface Sport {
  sport: string;
  state: string;
  side: string | null;
  reason: string;
}
const health = async (origin = instances[0]!.origin) =>
  (await (await fetch(`${origin}/api/feed-health`, { headers: { cookie: admin } })).json()) as {
    sports: Sport[];
    poller: { leaseHolder: string | null; failuresInARow: number };
    upstream: { answers: Record<string, number> };
  };

/** Waits until every sport (or those named) is in `state` on `side` with a reason matching; says what it saw last if not. */
async function waitFor(state: string, side: string | null, reason: RegExp, only?: string[], timeout = 60_000) {
  const deadline = Date.now() + timeout;
  let seen: Sport[] = [];
  while (Date.now() < deadline) {
    seen = (await health()).sports.filter((s) => !only || only.includes(s.sport));
    if (seen.length > 0 && seen.every((s) => s.state === state && s.side === side && reason.test(s.reason))) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`not ${state} (${side}, ${reason}) in time: ${JSON.stringify(seen.map((s) => [s.sport, s.state, s.side, s.reason]))}`);
}

/** Emails whose subject matches; after the wait, exactly `count` (a second instance must not send again). */
async function mails(subject: RegExp, count = 1) {
  await expect.poll(() => inbox.filter((m) => subject.test(subjectOf(m))).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  await new Promise((resolve) => setTimeout(resolve, 2_500)); // a duplicate from the other instance would come within a check or two
  const found = inbox.filter((m) => subject.test(subjectOf(m)));
  expect(found.map(subjectOf), `emails "${subject}"`).toHaveLength(count);
  return found;
}

const events = (kind: string) => posts.filter((p) => p.headers['x-picks-event'] === kind);

async function startPortal(port: number, url: string, env: Record<string, string>) {
  const instance = await startStaffPortal(port, {
    roles: ['admin', 'viewer'],
    env: {
      ...upstreamEnv(SANDBOX, KEY),
      DATABASE_URL: url,
      AUTH_SECRET: 'alerting-spec-secret-0123456789-abcdef',
      PICKS_ME_CACHE_SECONDS: '0',
      PICKS_API_MAX_RETRIES: '1',
      PICKS_API_TIMEOUT_MS: '2000',
      CHANGES_POLL_SECONDS: '2',
      CHANGES_DAYS_BACK: '2',
      CHANGES_DAYS_AHEAD: '2',
      ALERT_HOLD_SECONDS: String(HOLD_S),
      ALERT_CHECK_SECONDS: '1',
      DELIVERY_SECRET_KEY: 'alerting-delivery-secret-key-0123456789',
      DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
      ...env,
    },
  });
  instances.push(instance);
  return instance;
}

/** Skips the test saying PostgreSQL is missing, or in CI (where .ci/run installs it) fails it. */
const needPg = () => needPostgres(pgServer, 'the alerting test', (why) => test.skip(true, why));

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  pgServer = await startPostgres();
  if (!pgServer) return;
  const smtp = await startSmtp();
  ({ inbox, close: closeSmtp } = smtp);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_TEST_HOOKS: '1', SANDBOX_PICKS: '1500' });
  dbUrl = await pgServer.createDatabase('alerting');
  smtpUrl = smtp.url;
  client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const env = { SMTP_URL: smtpUrl, ALERT_EMAIL_FROM: 'alerts@portal.example' };
  await startPortal(PORTS[0], dbUrl, env);
  await startPortal(PORTS[1], dbUrl, env);
  admin = await sessionCookie(instances[0]!.origin, 'admin');
});

// What each scenario receives is counted from its start (a recovery of the one before may still arrive).
test.beforeEach(() => {
  inbox.length = 0;
  posts.length = 0;
});

test.afterAll(async () => {
  await client?.end();
  await Promise.all(instances.map((i) => i.stop()));
  await sandbox?.stop();
  receiver?.close();
  await closeSmtp();
  pgServer?.destroy();
});

test('an admin adds a signed webhook; the feed starts healthy', async () => {
  needPg();
  const origin = instances[0]!.origin;
  const { port } = receiver.address() as { port: number };
  const res = await fetch(`${origin}/api/alerts/webhooks`, {
    method: 'POST',
    headers: { cookie: admin, origin, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Ops receiver',
      url: `http://127.0.0.1:${port}/alerts?token=private-part`,
      format: 'signed',
      secret: WEBHOOK_SECRET,
      kinds: ['sport.degraded', 'sport.down', 'sport.recovered', 'licence.refused', 'licence.changed', 'portal.not-polling'],
    }),
  });
  expect(res.status).toBe(201);
  const text = await res.text();
  expect(text).not.toContain(WEBHOOK_SECRET);
  expect(text).not.toContain('private-part');
  await waitFor('healthy', null, /./);
  expect(inbox).toHaveLength(0); // a first healthy state is not news
});

test('webhooks are for admins from the portal itself; wrong ones are named; the secret and the URL’s path never show; a digest is chosen on /health', async ({
  page,
}) => {
  needPg();
  const origin = instances[1]!.origin; // the other instance: the webhook added on the first is in the shared store
  const viewer = await sessionCookie(origin, 'viewer');
  const post = (cookie: string, from: string, body: unknown) =>
    fetch(`${origin}/api/alerts/webhooks`, {
      method: 'POST',
      headers: { cookie, origin: from, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post(viewer, origin, {})).status).toBe(403);
  expect((await post(admin, 'https://evil.example', {})).status).toBe(403);
  const wrong = await post(admin, origin, { name: '', url: 'gopher://x', format: 'slack', kinds: [] });
  expect(wrong.status).toBe(400);
  expect(Object.keys(((await wrong.json()) as { error: { details: Record<string, string> } }).error.details).sort()).toEqual([
    'format',
    'kinds',
    'name',
    'url',
  ]);
  const listed = (await (await fetch(`${origin}/api/alerts/webhooks`, { headers: { cookie: admin } })).json()) as {
    data: { name: string; url: string; signed: boolean }[];
  };
  expect(listed.data).toEqual([
    expect.objectContaining({ name: 'Ops receiver', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/…$/), signed: true }),
  ]);
  const audit = await (await fetch(`${origin}/api/audit?action=alerts.webhook.add`, { headers: { cookie: admin } })).text();
  expect(audit).toContain('Ops receiver');
  expect(audit).not.toContain('private-part');

  await page
    .context()
    .addCookies(admin.split('; ').map((pair) => ({ name: pair.split('=')[0]!, value: pair.split('=').slice(1).join('='), url: origin })));
  await new AlertsPage(page, origin).visit();
  await expect(page.getByTestId('webhook-list')).toContainText('Ops receiver');
  const html = await page.content();
  expect(html).not.toContain(WEBHOOK_SECRET);
  expect(html).not.toContain('private-part');

  await new FeedHealthPage(page, origin).visit();
  const form = page.getByRole('form', { name: 'Alert emails for me' });
  await form.getByLabel('One daily digest instead').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByTestId('subscription-note')).toHaveText('Saved.');
  const mine = (await (await fetch(`${origin}/api/alerts/subscription`, { headers: { cookie: admin } })).json()) as { delivery: string };
  expect(mine.delivery).toBe('digest');
  // Back to each alert as it happens: the scenarios below count the admin's emails.
  const back = await fetch(`${origin}/api/alerts/subscription`, {
    method: 'PUT',
    headers: { cookie: admin, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ kinds: (mine as unknown as { kinds: string[] }).kinds, delivery: 'each' }),
  });
  expect(back.status).toBe(200);
});

test('401: the key refused is down on the licence’s side, one alert by email and webhook, then one recovery', async () => {
  needPg();
  await hook('answers', { status: 401 });
  await waitFor('down', 'licence', /refused the partner key \(401\)/);
  const [mail] = await mails(/sports down: the licence$/);
  expect(mail!.to).toEqual([STAFF.admin.email]);
  expect(mail!.raw).toContain('The Picks API refused the partner key (401)');
  expect(events('licence.refused')).toHaveLength(1);
  const [post] = events('licence.refused');
  expect(receiverAccepts(WEBHOOK_SECRET, post!.headers, post!.body)).toBe(true);
  expect((await health()).upstream.answers['401']).toBeGreaterThan(0);
  await hook('answers', { status: null });
  await waitFor('healthy', null, /./);
  const [recovered] = await mails(/sports recovered$/);
  expect(recovered!.raw).toMatch(/Before: down for \d+ min/);
  expect(events('sport.recovered')).toHaveLength(1);
});

test('403: access lost is down on the licence’s side, alerted once', async () => {
  needPg();
  await hook('answers', { status: 403 });
  await waitFor('down', 'licence', /no longer grants access \(403\)/);
  const [mail] = await mails(/sports down: the licence$/);
  expect(mail!.raw).toContain('The licence no longer grants access (403)');
  expect(events('licence.refused')).toHaveLength(1);
  await hook('answers', { status: null });
  await waitFor('healthy', null, /./);
  await mails(/sports recovered$/);
});

test('an outage (503) degrades, then is down on the upstream’s side; each alerted once', async () => {
  needPg();
  await hook('answers', { status: 503 });
  await waitFor('down', 'upstream', /polls in a row failed \(UPSTREAM_ERROR\)/);
  await mails(/sports down$/);
  expect(events('sport.down')).toHaveLength(1);
  expect((await health()).poller.failuresInARow).toBeGreaterThanOrEqual(3);
  expect((await health()).upstream.answers['5xx']).toBeGreaterThanOrEqual(6); // each poll's request and its retry
  await hook('answers', { status: null });
  await waitFor('healthy', null, /./);
  await mails(/sports recovered$/);
});

test('a pick overdue in its lifecycle degrades its sport alone', async () => {
  needPg();
  const day = 86_400_000;
  const window = `from=${new Date(Date.now() - day).toISOString()}&to=${new Date(Date.now() + day).toISOString()}`;
  const page = (await (
    await fetch(`${SANDBOX}/api/v1/picks?sport=Tennis&limit=1&${window}`, { headers: { Authorization: `Bearer ${KEY}` } })
  ).json()) as { data: { id: string; sport: string }[] };
  const pick = page.data[0]!;
  await hook('edit', { id: pick.id, fields: { status: 'upcoming', eventDate: new Date(Date.now() - 2 * 3_600_000).toISOString() } });
  await waitFor('degraded', 'upstream', /still upcoming/, ['Tennis']);
  expect((await health()).sports.filter((s) => s.state !== 'healthy').map((s) => s.sport)).toEqual(['Tennis']);
  const [mail] = await mails(/^\[Picks portal\] Tennis degraded$/);
  expect(mail!.raw).toContain('Tennis: degraded');
  await hook('edit', { id: pick.id, fields: { eventDate: new Date(Date.now() + 24 * 3_600_000).toISOString() } });
  await waitFor('healthy', null, /./, ['Tennis']);
  await mails(/^\[Picks portal\] Tennis recovered$/);
});

test('silence beyond the agreed cadence is degraded, then down', async () => {
  test.setTimeout(120_000);
  needPg();
  // The sandbox's clock is frozen, so no record changes by itself: every sport is silent. A cadence of a few
  // seconds (below what the API lets an admin set) is written straight into the store for one sport.
  const quiet = (await health()).sports.map((s) => s.sport).find((s) => s !== 'Tennis' && s !== 'Cricket')!;
  await client.query(`insert into feed_cadences (sport, seconds, updated_by, updated_at) values ($1, 3, 'test', now()::text)`, [quiet]);
  await waitFor('down', 'upstream', /No new or changed record .*the agreed cadence is 0 min/, [quiet]);
  await mails(new RegExp(`^\\[Picks portal\\] ${quiet} down$`));
  await client.query(`delete from feed_cadences where sport = $1`, [quiet]);
  await waitFor('healthy', null, /./, [quiet]);
});

test('a licence that loses a sport: the change is one alert, and the sport is down on the licence’s side', async () => {
  needPg();
  const me = (await (await fetch(`${SANDBOX}/api/v1/me`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
    licence: { sports: string[] };
  };
  const sports = me.licence.sports;
  expect(sports).toContain('Cricket');
  await hook('licence', { sports: sports.filter((s) => s !== 'Cricket') });
  await waitFor('down', 'licence', /no longer lists this sport/, ['Cricket']);
  const [changed] = await mails(/licence changed$/);
  expect(changed!.raw).toContain('sports: lost Cricket');
  expect(events('licence.changed')).toHaveLength(1);
  await hook('licence', { sports });
  await mails(/licence changed$/, 2);
  await waitFor('healthy', null, /./, ['Cricket']);
});

test('a 429 storm the retries get through is degraded on the upstream’s side', async () => {
  // Last but one: the storm's polls stay in the throttled share for a while after it ends.
  needPg();
  await hook('answers', { status: 429, retryAfter: 0, every: 2 });
  await waitFor('degraded', 'upstream', /polls were throttled \(429\)/);
  await mails(/sports degraded$/);
  expect((await health()).upstream.answers['429']).toBeGreaterThan(3);
  await hook('answers', { status: null });
});

test('both pollers stop: an instance that does not poll says nobody polls, once', async () => {
  test.setTimeout(120_000);
  needPg();
  const watcher = await startPortal(PORTS[2], dbUrl, { SMTP_URL: smtpUrl, CHANGES_POLL_SECONDS: '0' });
  await Promise.all(instances.slice(0, 2).map((i) => i.stop()));
  await expect
    .poll(
      async () => {
        const sports = (await health(watcher.origin)).sports;
        return (
          sports.length > 0 && sports.every((s) => s.state === 'down' && s.side === 'portal' && /No instance has polled/.test(s.reason))
        );
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  await mails(/sports down: no instance polling$/);
  expect(events('portal.not-polling')).toHaveLength(1);
});
