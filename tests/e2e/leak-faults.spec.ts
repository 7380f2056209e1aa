import { expect, signIn, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { PortalPage } from '../support/pages';
import { hits, record, type Seen } from '../support/leak';

/**
 * The partner key reaches no browser while the upstream fails in each way (behind the shared fault proxy, so this
 * spec runs one at a time): no page, no export, no console line holds it, plain or base64 (leak.spec.ts walks the
 * pages of every role with a healthy upstream).
 */

test('nor does any page or export while the upstream fails in each way', async ({ page }) => {
  const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;
  const origin = `http://localhost:${E2E.faultyPort}`;
  const seen: Seen[] = [];
  const consoleLines: string[] = [];
  const { drained } = record(page, seen, consoleLines);
  await signIn(page, 'admin', '/', origin);
  const faults = [
    { status: 401, body: '{"error":{"code":"UNAUTHORIZED","message":"bad key","requestId":"req_1"}}' },
    { status: 403, body: '{"error":{"code":"FORBIDDEN","message":"no","requestId":"req_2"}}' },
    // A short pause: a long one would hold this portal's every request for that long, and the specs after this
    // one share it (proof.spec waited out most of 120 s).
    { status: 429, headers: { 'Retry-After': '2' }, body: '' },
    { status: 500, body: 'Internal error' },
    { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><body>Bad gateway</body></html>' },
    { status: 200, body: '{"data":[{"id":1}],"page":{"hasMore":false}}' },
    { kind: 'truncate' },
  ];
  try {
    for (const fault of faults) {
      await fetch(`${proxy}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '^/api/v1/', ...fault }]) });
      for (const url of ['/licence', '/picks', '/results']) await new PortalPage(page, url, origin).visit();
      const res = await page.request.get(`${origin}/api/export/picks?format=csv`);
      seen.push({ url: 'export', status: res.status(), body: await res.text().catch(() => ''), headers: JSON.stringify(res.headers()) });
    }
  } finally {
    await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  }
  await drained();
  expect(seen.filter((s) => s.status >= 400 || s.body.includes('data-error-code')).length).toBeGreaterThan(20); // the faults really showed
  expect(seen.filter((s) => hits(s.body) + hits(s.headers) > 0).map((s) => `${s.status} ${s.url}`)).toEqual([]);
  expect(consoleLines.filter((line) => hits(line) > 0)).toEqual([]);
});
