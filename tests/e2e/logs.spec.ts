import { expect, STAFF, test } from '../support/fixtures';
import { E2E, e2eDay, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance } from '../support/instances';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { startStaffPortal } from '../support/staff-portal';

/**
 * The portal's logs as an operations team reads them (docs/operations.md#logs): every line its processes
 * print is one JSON object; each request has the id it answered with (X-Request-Id, error bodies), its route
 * pattern, status, duration, role and the upstream's request ids; a poll logs with its own id; an export cut
 * off mid-way is one warning line, not Next's stack; and no line holds the key, an email or a password.
 */

const SANDBOX_PORT = 4235;
const PORT = 3232;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let portal: Instance | undefined;
const output: string[] = [];

type Line = Record<string, unknown> & { level: string; msg: string };

/** The portal's lines so far; npm's own banner ("> picks-partner-portal@… start") is the one thing not JSON. */
function lines(): Line[] {
  const text = output.join('');
  return text
    .slice(0, text.lastIndexOf('\n') + 1) // a line still arriving is read next time
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('> '))
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`a log line is not JSON: ${line}`);
      }
    });
}
const lineOf = (reqId: string) => lines().find((line) => line.reqId === reqId && line.component === 'http' && 'status' in line);

test.beforeAll(async () => {
  test.setTimeout(180_000);
  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_TEST_HOOKS: '1', SANDBOX_PICKS: '3000' });
  portal = await startStaffPortal(PORT, {
    roles: ['admin', 'editor', 'viewer'],
    env: {
      ...upstreamEnv(sandbox.url, E2E.sandboxKey),
      AUTH_SECRET: 'logs-spec-secret-0123456789-abcdefghij',
      PICKS_API_MAX_RETRIES: '0',
      CHANGES_POLL_SECONDS: '3600',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: '',
    },
    output: output,
  });
});

test.afterAll(async () => {
  await portal?.stop();
  await sandbox?.stop();
});

test('JSON lines: a request id in the header, the error body and the line; route, role, upstream ids; poll ids; a cut export is one line', async () => {
  test.setTimeout(120_000);
  const { origin } = portal!;
  const editor = await sessionCookie(origin, 'editor');

  // A page: its line names the route pattern and the role, never the email, and the upstream's request ids.
  const page = await fetch(`${origin}/picks/${encodeURIComponent('pk_does-not-exist')}`, { headers: { cookie: editor } });
  const pageId = page.headers.get('x-request-id')!;
  expect(pageId).toMatch(/^[0-9a-f]{16}$/);
  const list = await fetch(`${origin}/picks?limit=50`, { headers: { cookie: editor } });
  expect(list.status).toBe(200);
  const listId = list.headers.get('x-request-id')!;
  expect(listId).not.toBe(pageId);
  await waitUntil(async () => Boolean(lineOf(listId)), 'the request line');
  expect(lineOf(listId)).toMatchObject({ level: 'info', method: 'GET', route: '/picks', status: 200, role: 'editor' });
  expect(lineOf(listId)!.ms).toEqual(expect.any(Number));
  expect(lineOf(listId)!.upstream).toEqual(expect.arrayContaining([expect.stringMatching(/^req_/)]));
  expect(lineOf(pageId)).toMatchObject({ route: '/picks/[id]', role: 'editor' });
  expect(lineOf(listId)).not.toHaveProperty('user');

  // An error body carries the same id as its header and its line.
  const invalid = await fetch(`${origin}/api/export/picks?format=csv&status=bogus&from=yesterday`, { headers: { cookie: editor } });
  expect(invalid.status).toBe(400);
  const invalidId = invalid.headers.get('x-request-id')!;
  expect(((await invalid.json()) as { error: { portalRequestId: string } }).error.portalRequestId).toBe(invalidId);
  const refused = await fetch(`${origin}/api/changes/poll`, {
    method: 'POST',
    headers: { cookie: editor, origin: 'https://evil.example' },
  });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { portalRequestId: string } }).error.portalRequestId).toBe(
    refused.headers.get('x-request-id'),
  );
  await waitUntil(async () => Boolean(lineOf(invalidId)), 'the refused request line');
  expect(lineOf(invalidId)).toMatchObject({ status: 400, route: '/api/export/picks', role: 'editor' });

  // An export the upstream breaks after its first pages: one warning line with the request's id, no stack.
  const exported = await fetch(
    `${origin}/api/export/picks?format=csv&from=${e2eDay(-400)}T00:00:00Z&to=${e2eDay(400)}T00:00:00Z&limit=100`,
    {
      headers: { cookie: editor },
    },
  );
  expect(exported.status).toBe(200);
  const exportId = exported.headers.get('x-request-id')!;
  const reader = exported.body!.getReader();
  await reader.read();
  await fetch(`${sandbox!.url}/__sandbox/answers`, { method: 'POST', body: JSON.stringify({ status: 503 }) });
  await expect(async () => {
    for (;;) if ((await reader.read()).done) break;
  }).rejects.toThrow();
  await fetch(`${sandbox!.url}/__sandbox/answers`, { method: 'POST', body: JSON.stringify({ status: null }) });
  await waitUntil(async () => lines().some((line) => line.reqId === exportId && /cut off mid-way/.test(line.msg)), 'the cut-off line');
  const cut = lines().filter((line) => line.reqId === exportId);
  expect(cut.find((line) => /cut off mid-way/.test(line.msg))).toMatchObject({ level: 'warn', component: 'http' });
  expect(JSON.stringify(cut)).not.toContain('failed to pipe response');
  expect(output.join('')).not.toMatch(/failed to pipe response/);

  // A poll logs with its own id.
  const admin = await sessionCookie(origin, 'admin');
  expect((await fetch(`${origin}/api/changes/poll`, { method: 'POST', headers: { cookie: admin, origin } })).status).toBe(202);
  await waitUntil(
    async () => lines().some((line) => line.component === 'changes' && /^poll (complete|failed)/.test(line.msg)),
    'the poll line',
  );
  const poll = lines().find((line) => line.component === 'changes' && /^poll complete/.test(line.msg))!;
  expect(poll).toMatchObject({ level: 'info', poll: expect.stringMatching(/^poll_[0-9a-f]{10}$/), watched: expect.any(Number) });

  // Every line: JSON with a level, a time and the instance; nothing secret in any of them.
  const all = lines();
  expect(all.length).toBeGreaterThan(10);
  for (const line of all) {
    expect(typeof line.level).toBe('string');
    expect(Date.parse(String(line.time))).toBeGreaterThan(0);
    expect(String(line.instance)).toMatch(/:\d+$/);
  }
  const text = output.join('');
  for (const secret of [
    E2E.sandboxKey,
    Buffer.from(E2E.sandboxKey).toString('base64').replace(/=+$/, ''),
    STAFF.editor.email,
    STAFF.editor.password,
  ])
    expect(text).not.toContain(secret);
  expect(text).not.toContain('logs-spec-secret-0123456789-abcdefghij');
});
