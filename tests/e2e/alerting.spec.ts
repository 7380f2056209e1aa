import { receiverAccepts } from '../support/webhook-signature';
import { expect, STAFF, test } from '../support/fixtures';
import { sessionCookie } from '../support/session';
import { AlertsPage, FeedHealthPage } from '../support/pages';

import { alertingPortals } from '../support/alerting-portals';

/**
 * Feed health and its alerts end to end (tests/support/alerting-portals.ts): two portals on one PostgreSQL poll a
 * sandbox of this spec's own, which its test hooks drive into each state and back — the key refused (401), access
 * lost (403), an outage (503). Each state is read from GET /api/feed-health (state, side, reason), and its alert
 * arrives exactly once at a real SMTP server and at a webhook receiver that checks the signature, however many
 * instances there are. More states, and both pollers stopping: alerting-states.spec.ts.
 */

const { s, WEBHOOK_SECRET, instances, hook, health, waitFor, mails, events, needPg, addWebhook } = alertingPortals({
  sandboxPort: 4232,
  ports: [3222, 3223, 3224],
  database: 'alerting',
});

test('an admin adds a signed webhook; the feed starts healthy', async () => {
  await addWebhook();
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
  expect((await post(s.admin, 'https://evil.example', {})).status).toBe(403);
  const wrong = await post(s.admin, origin, { name: '', url: 'gopher://x', format: 'slack', kinds: [] });
  expect(wrong.status).toBe(400);
  expect(Object.keys(((await wrong.json()) as { error: { details: Record<string, string> } }).error.details).sort()).toEqual([
    'format',
    'kinds',
    'name',
    'url',
  ]);
  const listed = (await (await fetch(`${origin}/api/alerts/webhooks`, { headers: { cookie: s.admin } })).json()) as {
    data: { name: string; url: string; signed: boolean }[];
  };
  expect(listed.data).toEqual([
    expect.objectContaining({ name: 'Ops receiver', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/…$/), signed: true }),
  ]);
  const audit = await (await fetch(`${origin}/api/audit?action=alerts.webhook.add`, { headers: { cookie: s.admin } })).text();
  expect(audit).toContain('Ops receiver');
  expect(audit).not.toContain('private-part');

  await page
    .context()
    .addCookies(s.admin.split('; ').map((pair) => ({ name: pair.split('=')[0]!, value: pair.split('=').slice(1).join('='), url: origin })));
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
  const mine = (await (await fetch(`${origin}/api/alerts/subscription`, { headers: { cookie: s.admin } })).json()) as { delivery: string };
  expect(mine.delivery).toBe('digest');
  // Back to each alert as it happens: the scenarios below count the admin's emails.
  const back = await fetch(`${origin}/api/alerts/subscription`, {
    method: 'PUT',
    headers: { cookie: s.admin, origin, 'content-type': 'application/json' },
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
