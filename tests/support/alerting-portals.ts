import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import pg from 'pg';
import { needPostgres, startPostgres, type TestPostgres } from './postgres';
import { startSmtp, subjectOf, type Received } from './smtp';
import { expect, test } from './fixtures';
import { E2E, upstreamEnv } from './ports';
import { type Instance } from './instances';
import { startStaffPortal } from './staff-portal';
import { startSandboxProcess } from './sandbox-process';
import { sessionCookie } from './session';

/**
 * The alerting specs' servers (tests/e2e/alerting*.spec.ts): two portals on one PostgreSQL database (`npm start`)
 * polling a sandbox of the spec's own with its test hooks on, a real SMTP server and a webhook receiver. Call it
 * once at the top of a spec: its tests run one after another on servers started before them. `addWebhook` is the
 * admin's signed webhook every scenario's alerts go to.
 */
export function alertingPortals(options: { sandboxPort: number; ports: readonly [number, number, number]; database: string }) {
  test.describe.configure({ mode: 'serial' });
  const SANDBOX = `http://127.0.0.1:${options.sandboxPort}`;
  const PORTS = options.ports;
  const KEY = E2E.sandboxKey;
  const WEBHOOK_SECRET = 'alerting-webhook-secret-0123456789';
  const HOLD_S = 3;

  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
  let pgServer: TestPostgres | null = null;
  let closeSmtp: () => Promise<void> = async () => undefined;
  const posts: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const instances: Instance[] = [];
  const s = {
    inbox: [] as Received[],
    admin: '',
    dbUrl: '',
    smtpUrl: '',
    client: undefined as unknown as pg.Client,
    receiver: undefined as unknown as Server,
  };

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
    (await (await fetch(`${origin}/api/feed-health`, { headers: { cookie: s.admin } })).json()) as {
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
    await expect.poll(() => s.inbox.filter((m) => subject.test(subjectOf(m))).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a duplicate from the other instance would come within a check or two
    const found = s.inbox.filter((m) => subject.test(subjectOf(m)));
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

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pgServer = await startPostgres();
    if (!pgServer) return;
    const smtp = await startSmtp();
    s.inbox = smtp.inbox;
    closeSmtp = smtp.close;
    s.receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => s.receiver.listen(0, '127.0.0.1', resolve));
    sandbox = await startSandboxProcess(options.sandboxPort, { SANDBOX_TEST_HOOKS: '1', SANDBOX_PICKS: '1500' });
    s.dbUrl = await pgServer.createDatabase(options.database);
    s.smtpUrl = smtp.url;
    s.client = new pg.Client({ connectionString: s.dbUrl });
    await s.client.connect();
    const env = { SMTP_URL: s.smtpUrl, ALERT_EMAIL_FROM: 'alerts@portal.example' };
    await startPortal(PORTS[0], s.dbUrl, env);
    await startPortal(PORTS[1], s.dbUrl, env);
    s.admin = await sessionCookie(instances[0]!.origin, 'admin');
  });

  // What each scenario receives is counted from its start (a recovery of the one before may still arrive).
  test.beforeEach(() => {
    s.inbox.length = 0;
    posts.length = 0;
  });

  test.afterAll(async () => {
    await s.client?.end();
    await Promise.all(instances.map((i) => i.stop()));
    await sandbox?.stop();
    s.receiver?.close();
    await closeSmtp();
    pgServer?.destroy();
  });

  /** An admin adds the signed webhook every alert goes to (its secret and its URL's path not in the answer); the feed starts healthy, unannounced. */
  async function addWebhook(): Promise<void> {
    needPg();
    const origin = instances[0]!.origin;
    const { port } = s.receiver.address() as { port: number };
    const res = await fetch(`${origin}/api/alerts/webhooks`, {
      method: 'POST',
      headers: { cookie: s.admin, origin, 'content-type': 'application/json' },
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
    expect(s.inbox).toHaveLength(0); // a first healthy state is not news
  }

  return {
    s,
    SANDBOX,
    KEY,
    PORTS,
    WEBHOOK_SECRET,
    HOLD_S,
    instances,
    posts,
    hook,
    health,
    waitFor,
    mails,
    events,
    startPortal,
    needPg,
    addWebhook,
  };
}
