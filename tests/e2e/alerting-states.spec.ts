import { expect, test } from '../support/fixtures';

import { alertingPortals } from '../support/alerting-portals';

/**
 * Feed health and its alerts, more states (tests/support/alerting-portals.ts, on servers of this spec's own): a
 * pick overdue in its lifecycle, silence beyond an agreed cadence, a licence that loses a sport, a 429 storm the
 * retries get through; last, both pollers stop and a third instance that does not poll says so, once.
 */

const { s, SANDBOX, KEY, PORTS, instances, hook, health, waitFor, mails, events, startPortal, needPg, addWebhook } = alertingPortals({
  sandboxPort: 4245,
  ports: [3250, 3251, 3252],
  database: 'alerting_states',
});

test('an admin adds a signed webhook; the feed starts healthy (here too)', async () => {
  await addWebhook();
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
  await s.client.query(`insert into feed_cadences (sport, seconds, updated_by, updated_at) values ($1, 3, 'test', now()::text)`, [quiet]);
  await waitFor('down', 'upstream', /No new or changed record .*the agreed cadence is 0 min/, [quiet]);
  await mails(new RegExp(`^\\[Picks portal\\] ${quiet} down$`));
  await s.client.query(`delete from feed_cadences where sport = $1`, [quiet]);
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
  const watcher = await startPortal(PORTS[2], s.dbUrl, { SMTP_URL: s.smtpUrl, CHANGES_POLL_SECONDS: '0' });
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
