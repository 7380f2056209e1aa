import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { needPostgres, startPostgres, type TestPostgres } from './postgres';
import { expect, test } from './fixtures';
import { E2E, upstreamEnv } from './ports';
import type { Instance } from './instances';
import { startStaffPortal } from './staff-portal';
import { startSandboxProcess } from './sandbox-process';
import { sessionCookie } from './session';
import { expectDescribed } from './described';

/**
 * The API token specs' servers (tests/e2e/tokens*.spec.ts): a sandbox of the spec's own, and two portals
 * (`npm start`) on one PostgreSQL database in front of it, the second behind an upstream that ignores the sport
 * and league filters (as a faulty upstream might). Call it once at the top of a spec: its tests run one after
 * another, on servers started before them and stopped after. It returns what the tests call: the session API, API
 * v1 with a token, the upstream's own answers, and every answer and log line seen, for the last check.
 */
export function tokenPortals(options: { sandboxPort: number; ports: readonly [number, number]; database: string }) {
  test.describe.configure({ mode: 'serial' });
  const SANDBOX = `http://127.0.0.1:${options.sandboxPort}`;
  const KEY = E2E.sandboxKey;
  const DAY = 86_400_000;

  let pgServer: TestPostgres | null = null;
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
  let filterless: Server | undefined;
  const instances: Instance[] = [];
  const output: string[] = [];
  /** Every answer of the portals' /api/v1 in this spec: none may carry the key or a token. */
  const answers: string[] = [];
  const cookies: Record<'admin' | 'editor' | 'viewer', string> = { admin: '', editor: '', viewer: '' };
  const made: Record<string, { id: string; token: string }> = {};
  /** What an operator's `npm run users` is given: the portals' own settings (their environment file). */
  let operatorEnv: Record<string, string> = {};

  const A = () => instances[0]!.origin;
  const B = () => instances[1]!.origin;

  /** The session API as a signed-in person (a state change names the portal as its Origin). */
  async function api(role: keyof typeof cookies, method: string, path: string, body?: unknown, origin = A()) {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { cookie: cookies[role], origin, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    await expectDescribed(origin, cookies[role], method, path, res, text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** The portal's /api/v1 with a token. */
  async function v1(origin: string, path: string, token: string) {
    const res = await fetch(`${origin}/api/v1${path}`, { headers: { Authorization: `Bearer ${token}` } });
    const text = await res.text();
    await expectDescribed(origin, undefined, 'GET', `/api/v1${path}`, res, text);
    answers.push(`${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
    expect(res.headers.get('cache-control'), path).toBe('private, no-store');
    return { status: res.status, headers: res.headers, body: JSON.parse(text) };
  }

  /** The sandbox directly, with the partner key: the upstream's own answer for a filter. */
  async function upstreamIds(filters: Record<string, string>): Promise<string[]> {
    return (await upstreamRecords(filters)).map((r) => r.id!);
  }

  /** Every record the sandbox itself has for these filters, as it sends them. */
  async function upstreamRecords(filters: Record<string, string>): Promise<Record<string, string>[]> {
    const records: Record<string, string>[] = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
      const body = (await (await fetch(`${SANDBOX}/api/v1/picks?${q}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
        data: Record<string, string>[];
        page: { nextCursor: string | null; hasMore: boolean };
      };
      records.push(...body.data);
      cursor = body.page.hasMore ? body.page.nextCursor : null;
    } while (cursor);
    return records;
  }

  /** The sandbox's count of requests, a second after the last one (what was read ahead has arrived). */
  async function upstreamRequests(): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return ((await (await fetch(`${SANDBOX}/__sandbox/stats`)).json()) as { requests: number }).requests;
  }

  /** Every record of a walk through the portal with a token. */
  async function walkPortal(origin: string, token: string, filters: Record<string, string> = {}, limit = 50) {
    const records: ({ id: string; sport: string; league: string; eventDate: string } & Record<string, string>)[] = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ ...filters, limit: String(limit), ...(cursor ? { cursor } : {}) });
      const page = await v1(origin, `/picks?${q}`, token);
      expect(page.status).toBe(200);
      records.push(...page.body.data);
      cursor = page.body.page.hasMore ? page.body.page.nextCursor : null;
    } while (cursor);
    return records;
  }

  const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
  const settings = (over: Record<string, unknown> = {}) => ({
    name: 'Warehouse loader',
    scope: { content: ['picks', 'results'], sports: [], leagues: [] },
    expiresAt: inDays(30),
    ratePerMinute: 6_000,
    dailyRecords: 10_000_000,
    ...over,
  });
  async function makeToken(name: string, over: Record<string, unknown> = {}, role: 'admin' | 'editor' = 'admin') {
    const res = await api(role, 'POST', '/api/tokens', settings({ name, ...over }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    made[name] = { id: res.body.id, token: res.body.token };
    return made[name]!;
  }

  const needPg = () => needPostgres(pgServer, 'the API tokens tests', (why) => test.skip(true, why));

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pgServer = await startPostgres();
    if (!pgServer) return;
    sandbox = await startSandboxProcess(options.sandboxPort, { SANDBOX_PICKS: '3000', SANDBOX_RATE_LIMIT: '0' });
    const url = await pgServer.createDatabase(options.database);
    // The second portal's upstream ignores the sport and league filters (as a faulty upstream might): what it
    // answers through /api/v1 must still be only what each token's scope holds.
    filterless = createServer((req, res) => {
      const url = new URL(req.url ?? '/', SANDBOX);
      url.searchParams.delete('sport');
      url.searchParams.delete('league');
      void fetch(url, { headers: { Authorization: String(req.headers.authorization) } }).then(async (answer) => {
        res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => filterless!.listen(0, '127.0.0.1', resolve));
    const upstreams = [SANDBOX, `http://127.0.0.1:${(filterless!.address() as AddressInfo).port}`];
    operatorEnv = { ...upstreamEnv(SANDBOX, KEY), DATABASE_URL: url, AUTH_SECRET: 'tokens-spec-secret-0123456789-abcdef' };
    for (const [k, port] of options.ports.entries())
      instances.push(
        await startStaffPortal(port, {
          roles: ['admin', 'editor', 'viewer'],
          env: {
            ...upstreamEnv(upstreams[k]!, KEY),
            PORTAL_IMAGE_ORIGINS: SANDBOX,
            DATABASE_URL: url,
            AUTH_SECRET: 'tokens-spec-secret-0123456789-abcdef',
            CHANGES_POLL_SECONDS: '0',
            DELIVERY_SECRET_KEY: 'tokens-spec-delivery-secret-0123456789',
            DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
          },
          output: output,
        }),
      );
    for (const role of ['admin', 'editor', 'viewer'] as const) cookies[role] = await sessionCookie(A(), role);
  });

  test.afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await sandbox?.stop();
    filterless?.close();
    pgServer?.destroy();
  });

  /** The operator's `npm run users` against the portals' store. */
  const users = (...args: string[]) =>
    promisify(execFile)('npm', ['run', '-s', 'users', '--', ...args], { env: { ...process.env, ...operatorEnv } }).then((r) => r.stdout);

  return {
    SANDBOX,
    KEY,
    DAY,
    A,
    B,
    api,
    v1,
    upstreamIds,
    upstreamRecords,
    upstreamRequests,
    walkPortal,
    settings,
    makeToken,
    needPg,
    users,
    made,
    answers,
    output,
    cookies,
    operatorEnv: () => operatorEnv,
  };
}

/** Neither the partner key nor any token made is in an answer or a log line of the spec's portals. */
export function expectNothingSecret(portals: ReturnType<typeof tokenPortals>) {
  expect(portals.answers.length).toBeGreaterThan(10);
  const tokens = Object.values(portals.made).map((t) => t.token);
  for (const text of [portals.answers.join('\n'), portals.output.join('')]) {
    expect(text).not.toContain(portals.KEY);
    for (const token of tokens) expect(text).not.toContain(token.slice(4));
  }
}
