import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFaultProxy } from '../support/fault-proxy';
import { sshdMissing, startSshd, type TestSshd } from '../support/sshd';
import { receiverAccepts } from '../support/webhook-signature';
import { expect, signIn, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { type Instance } from '../support/instances';
import { DeliveriesPage } from '../support/pages/deliveries-page';
import { sessionCookie, walkSandbox } from '../support/session';
import { api, runOf, startDeliveryPortal, stopDeliveryPortals } from '../support/delivery-portal';
import { DeliveryPage } from '../support/pages';

/**
 * Scheduled deliveries end to end, through the portal's HTTP API, against the e2e sandbox (behind a fault
 * proxy of this spec's own): run now into a folder, compared record for record with a direct walk; the
 * manifest's sha256; a run on its cron (every minute); a failure mid-way that leaves nothing; a webhook and
 * an SFTP server (a real sshd) receiving files; roles; secrets absent from every answer, page and log; the form.
 * Destinations in a partner's own systems and two instances: deliveries-destinations.spec.ts.
 */

const WEBHOOK_SECRET = 'whsec-never-shown-4f1c2a9b7e';
const proxy = createFaultProxy(`http://127.0.0.1:${E2E.sandboxPort}`);

/** Issue 72: a delivery wrong in four fields, one of them a destination field that fails on its own. */
const FOUR_WRONG = {
  name: '',
  kind: 'picks',
  format: 'csv',
  filters: {},
  schedule: '61 * * * *',
  destination: { type: 'webhook', url: 'https://hooks.partner.invalid/in', secret: 'short' },
};

test.afterAll(async () => {
  await stopDeliveryPortals();
  await proxy.close();
});

test.describe.serial('deliveries on one portal', () => {
  let portal: Instance;
  let editor: ReturnType<typeof api>;
  const root = mkdtempSync(path.join(tmpdir(), 'delivery-root-'));
  const logs: string[] = [];
  let proxyUrl = '';

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    proxyUrl = await proxy.listen(0);
    portal = await startDeliveryPortal(
      3216,
      { ...upstreamEnv(proxyUrl, E2E.sandboxKey), PICKS_API_MAX_RETRIES: '0', DELIVERY_ROOT: root, PICKS_ME_CACHE_SECONDS: '0' },
      logs,
    );
    editor = api(portal.origin, await sessionCookie(portal.origin, 'editor'));
  });

  test('run now into a folder: every record of a direct walk, a manifest whose sha256 matches, and the run in its history', async () => {
    const created = await editor('POST', '/api/deliveries', {
      name: 'Tennis daily',
      kind: 'picks',
      format: 'json',
      filters: { sport: 'Tennis' },
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'partner/tennis' },
    });
    expect(created.status).toBe(201);
    const id = created.json!.id as string;
    expect(id).toMatch(/^dlv_[a-f0-9]{16}$/);
    expect(created.json).toMatchObject({
      scheduleInWords: 'At 06:00 (UTC)',
      nextRuns: expect.arrayContaining([expect.stringMatching(/T06:00:00.000Z$/)]),
    });
    const started = await editor('POST', `/api/deliveries/${id}/run`);
    expect(started.status).toBe(202);
    const run = await runOf(editor, id, started.json!.run.id);
    expect(run).toMatchObject({ outcome: 'complete', trigger: 'manual', error: null });
    const file = path.join(root, String(run.file));
    const bytes = await readFile(file);
    const manifest = JSON.parse(await readFile(`${file}.manifest.json`, 'utf8'));
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(manifest).toMatchObject({ sha256: sha, records: run.records, bytes: bytes.length, delivery: { id, name: 'Tennis daily' } });
    expect(run.sha256).toBe(sha);
    const expected = (await walkSandbox(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey, 'picks', { sport: 'Tennis' })).map(
      (p) => p.id,
    );
    expect(expected.length).toBeGreaterThan(100);
    expect((JSON.parse(bytes.toString()) as { data: { id: string }[] }).data.map((p) => p.id)).toEqual(expected);
    expect((await readdir(path.dirname(file))).filter((n) => n.includes('.part'))).toEqual([]);
  });

  test('a run whose records fall outside the licence is delivered, and marked with how many on its page', async ({ page }) => {
    // /me narrowed to Football: the Tennis records the upstream still sends are outside the licence.
    const me = { partner: 'Partner', licence: { id: 'lic_narrow', status: 'active', sports: ['Football'], contentMode: 'full' } };
    await fetch(`${proxyUrl}/__faults`, {
      method: 'POST',
      body: JSON.stringify([
        { path: '^/api/v1/me', status: 200, body: JSON.stringify(me), headers: { 'content-type': 'application/json' } },
      ]),
    });
    const created = await editor('POST', '/api/deliveries', {
      name: 'Tennis narrowed',
      kind: 'results',
      format: 'csv',
      filters: { league: 'ATP Tour' },
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'partner/narrowed' },
    });
    const id = created.json!.id as string;
    let run: Record<string, unknown>;
    try {
      run = await runOf(editor, id, (await editor('POST', `/api/deliveries/${id}/run`)).json!.run.id);
    } finally {
      await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });
    }
    expect(run).toMatchObject({ outcome: 'complete', outsideLicence: run.records });
    expect(run.records).toBeGreaterThan(0);
    const manifest = JSON.parse(await readFile(path.join(root, `${String(run.file)}.manifest.json`), 'utf8'));
    expect(manifest.licenceAttestation).toMatchObject({ result: 'outside', outside: { count: run.records } });

    // An ordinary run of the same delivery is not marked.
    const plain = await runOf(editor, id, (await editor('POST', `/api/deliveries/${id}/run`)).json!.run.id);
    expect(plain).toMatchObject({ outcome: 'complete', outsideLicence: null });

    await signIn(page, 'editor', `/deliveries/${id}`, portal.origin);
    await new DeliveryPage(page, id, portal.origin).visit();
    const rows = page.getByTestId('runs-table').locator('tbody tr');
    await expect(rows.filter({ has: page.getByTestId('outside-licence') })).toHaveCount(1);
    await expect(page.locator(`tr[data-run="${String(run.id)}"]`).getByTestId('outside-licence')).toHaveText(
      `${String(run.records)} outside the licence`,
    );
    await expect(page.locator(`tr[data-run="${String(plain.id)}"]`)).toHaveAttribute('data-outside-licence', '0');
  });

  test('a run on its cron (every minute), and a failure mid-way that leaves nothing and is shown', async () => {
    test.setTimeout(150_000);
    const cron = await editor('POST', '/api/deliveries', {
      name: 'Every minute',
      kind: 'results',
      format: 'csv',
      filters: { league: 'ATP Tour' },
      schedule: '* * * * *',
      destination: { type: 'directory', folder: 'minutely' },
    });
    const id = cron.json!.id as string;
    const run = await runOf(editor, id);
    expect(run).toMatchObject({ trigger: 'schedule', outcome: 'complete', dueMs: expect.any(Number) });
    expect((run.dueMs as number) % 60_000).toBe(0);
    await editor('PATCH', `/api/deliveries/${id}`, { paused: true });

    await fetch(`${proxyUrl}/__faults`, {
      method: 'POST',
      body: JSON.stringify([{ path: '/api/v1/picks', from: 2, status: 500, body: '{}' }]),
    });
    const broken = await editor('POST', '/api/deliveries', {
      name: 'Broken mid-way',
      kind: 'picks',
      format: 'csv',
      filters: {},
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'broken' },
    });
    const failed = await runOf(editor, broken.json!.id, (await editor('POST', `/api/deliveries/${broken.json!.id}/run`)).json!.run.id);
    await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });
    expect(failed).toMatchObject({ outcome: 'failed', file: null, sha256: null });
    expect(String(failed.error)).toMatch(/^UPSTREAM_ERROR/);
    await expect(readdir(path.join(root, 'broken'))).rejects.toThrow(/ENOENT/);
    const shown = await editor('GET', `/api/deliveries/${broken.json!.id}`);
    expect(shown.json).toMatchObject({ failuresInARow: 1, lastRun: { outcome: 'failed' } });
  });

  test('a webhook receives the file signed, and an SFTP server (a real sshd) receives it under its final name', async () => {
    test.setTimeout(90_000);
    const received: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let sshd: TestSshd | null = null;
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
      const hook = await editor('POST', '/api/deliveries', {
        name: 'Webhook',
        kind: 'results',
        format: 'json',
        filters: { sport: 'Tennis' },
        schedule: '0 7 * * *',
        destination: { type: 'webhook', url, secret: WEBHOOK_SECRET },
      });
      expect(hook.status).toBe(201);
      expect(hook.json!.destination).toEqual({ type: 'webhook', url, secret: 'set' });
      const run = await runOf(editor, hook.json!.id, (await editor('POST', `/api/deliveries/${hook.json!.id}/run`)).json!.run.id);
      expect(run.outcome).toBe('complete');
      const [got] = received;
      expect(receiverAccepts(WEBHOOK_SECRET, got!.headers, got!.body)).toBe(true);
      expect(createHash('sha256').update(got!.body).digest('hex')).toBe(run.sha256);

      sshd = await startSshd();
      if (!sshd) return void test.info().annotations.push({ type: 'skipped', description: sshdMissing('the SFTP delivery over HTTP') });
      const sftp = await editor('POST', '/api/deliveries', {
        name: 'SFTP partner',
        kind: 'picks',
        format: 'csv',
        filters: { sport: 'Tennis', status: 'settled' },
        schedule: '0 8 * * *',
        destination: {
          type: 'sftp',
          host: '127.0.0.1',
          port: sshd.port,
          username: sshd.username,
          privateKey: sshd.privateKey,
          path: 'drop',
        },
      });
      expect(sftp.status).toBe(201);
      const sftpRun = await runOf(editor, sftp.json!.id, (await editor('POST', `/api/deliveries/${sftp.json!.id}/run`)).json!.run.id);
      expect(sftpRun).toMatchObject({ outcome: 'complete' });
      const names = (await readdir(path.join(sshd.home, 'drop'))).sort();
      expect(names).toEqual([
        expect.stringMatching(/^sftp-partner-picks-.*\.csv$/),
        expect.stringMatching(/\.csv\.manifest\.json$/),
        expect.stringMatching(/\.csv\.manifest\.jws$/),
      ]);
      const uploaded = await readFile(path.join(sshd.home, 'drop', names[0]!));
      expect(createHash('sha256').update(uploaded).digest('hex')).toBe(sftpRun.sha256);
      expect((await editor('GET', `/api/deliveries/${sftp.json!.id}`)).json!.hostKey).toBe(sshd.fingerprint);
      // Trusting whatever key answers next is an admin's call; an editor may give the fingerprint instead.
      expect((await editor('PATCH', `/api/deliveries/${sftp.json!.id}`, { repinHostKey: true })).status).toBe(403);
      const admin = api(portal.origin, await sessionCookie(portal.origin, 'admin'));
      const repinned = await admin('PATCH', `/api/deliveries/${sftp.json!.id}`, { repinHostKey: true });
      expect(repinned.json).toMatchObject({ hostKey: null, destination: { secret: 'set' } });
      const given = await editor('PATCH', `/api/deliveries/${sftp.json!.id}`, {
        destination: { type: 'sftp', host: '127.0.0.1', port: sshd.port, username: sshd.username, path: 'drop', hostKey: sshd.fingerprint },
      });
      expect(given.status).toBe(200);
      expect(given.json).toMatchObject({ hostKey: sshd.fingerprint, destination: { secret: 'set' } });
    } finally {
      server.close();
      sshd?.stop();
    }
  });

  test('roles: viewers and managers are refused; bad input is a 400 naming the field; secrets appear in no answer, page or log', async ({
    page,
  }) => {
    for (const role of ['viewer', 'manager'] as const) {
      const as = api(portal.origin, await sessionCookie(portal.origin, role));
      expect((await as('GET', '/api/deliveries')).status, role).toBe(403);
      expect((await as('POST', '/api/deliveries', { name: 'x' })).status, role).toBe(403);
    }
    const bad = await editor('POST', '/api/deliveries', {
      name: 'Escape',
      kind: 'picks',
      format: 'csv',
      filters: { sport: 'Tennis', from: 'yesterday' },
      schedule: '61 * * * *',
      destination: { type: 'directory', folder: '../../etc' },
    });
    expect(bad.status).toBe(400);
    // Every wrong field at once: the filter, the schedule and the folder.
    expect(Object.keys(bad.json!.error.details).sort()).toEqual(['destination.folder', 'filters.from', 'schedule']);
    // Four wrong fields, one of them a destination field that fails on its own (a 5-character secret): the others of
    // the destination are still checked (its URL's host does not resolve), and all four come in one answer.
    const four = await editor('POST', '/api/deliveries', FOUR_WRONG);
    expect(four.status).toBe(400);
    expect(four.json!.error.details).toEqual({
      name: 'is required',
      schedule: expect.stringContaining('not a valid cron expression'),
      'destination.url': 'hooks.partner.invalid does not resolve',
      'destination.secret': 'must be at least 16 characters',
    });
    expect(four.json!.error.settings).toBeUndefined();
    const badFolder = await editor('POST', '/api/deliveries', {
      name: 'Escape',
      kind: 'picks',
      format: 'csv',
      filters: {},
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: '../../etc' },
    });
    expect(badFolder.json!.error.details).toEqual({ 'destination.folder': 'must stay under DELIVERY_ROOT (no "..")' });
    const list = await editor('GET', '/api/deliveries');
    // A change that leaves the secret out keeps it; removal is for good.
    const hook = (list.json!.data as { id: string; name: string }[]).find((d) => d.name === 'Webhook')!;
    const changed = await editor('PATCH', `/api/deliveries/${hook.id}`, { schedule: '30 7 * * *' });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ scheduleInWords: 'At 07:30 (UTC)', destination: { secret: 'set' } });
    expect(changed.text).not.toContain(WEBHOOK_SECRET);
    const everyMinute = (list.json!.data as { id: string; name: string }[]).find((d) => d.name === 'Every minute')!;
    expect((await editor('DELETE', `/api/deliveries/${everyMinute.id}`)).status).toBe(204);
    expect((await editor('GET', `/api/deliveries/${everyMinute.id}`)).status).toBe(404);
    expect(list.text).not.toContain(WEBHOOK_SECRET);
    expect(list.text).not.toContain('PRIVATE KEY');
    const deliveries = new DeliveriesPage(page, portal.origin);
    await deliveries.openAsEditor();
    await expect(deliveries.delivery('Webhook')).toContainText('Secret');
    await expect(deliveries.delivery('Broken mid-way').locator('[data-state=failing]')).toBeVisible();
    expect(await page.content()).not.toContain(WEBHOOK_SECRET);
    expect(logs.join('')).not.toContain(WEBHOOK_SECRET);
    expect(logs.join('')).not.toContain('PRIVATE KEY');
  });
  test('the form: filters chosen from the licence, a preview before saving, every problem under its field at once', async ({ page }) => {
    const deliveries = new DeliveriesPage(page, portal.origin);
    await deliveries.openAsEditor();
    const form = deliveries.form;
    // Sport is a choice of the licensed sports, not free text.
    const sports = await form.getByLabel('Sport', { exact: true }).locator('option').allTextContents();
    expect(sports[0]).toBe('Any sport');
    expect(sports).toContain('Tennis');
    await form.getByLabel('Sport', { exact: true }).selectOption('Tennis');
    await form.getByLabel('Status').selectOption('upcoming');
    // The preview counts what the filters (by default yesterday to tomorrow, UTC) match now: a direct walk agrees.
    const day = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const expected = await walkSandbox(proxyUrl, E2E.sandboxKey, 'picks', {
      sport: 'Tennis',
      status: 'upcoming',
      from: new Date(day - 86_400_000).toISOString(),
      to: new Date(day + 86_400_000).toISOString(),
    });
    const preview = form.getByTestId('delivery-preview');
    await expect(preview).toHaveAttribute('data-state', 'done');
    await expect(preview).toHaveText(
      expected.length === 0 ? /^No records match now/ : new RegExp(`^${expected.length} records?: picks matching now`),
    );
    // The four wrong fields of the API's test above, on the form: each said once, beside its field, after one submit.
    await form.getByLabel('Schedule preset').selectOption('custom');
    await form.locator('#f-schedule').fill(FOUR_WRONG.schedule);
    await deliveries.field('Destination').selectOption('webhook');
    await form.getByLabel('URL (https)').fill(FOUR_WRONG.destination.url);
    await form.getByLabel('Signing secret (16+ characters)').fill(FOUR_WRONG.destination.secret);
    await deliveries.create();
    const problem = form.getByTestId('delivery-problem');
    await expect(problem).toContainText('4 fields need a change');
    await expect(problem.getByRole('link')).toHaveText(['Name', 'Schedule', 'URL', 'Signing secret']);
    await expect(deliveries.fieldError('f-url')).toHaveText('hooks.partner.invalid does not resolve');
    await expect(deliveries.fieldError('f-secret')).toHaveText('must be at least 16 characters');
    await expect(form.getByText('does not resolve')).toHaveCount(1);
    await expect(form.getByText('must be at least 16 characters')).toHaveCount(1);
    await deliveries.field('Destination').selectOption('directory');
    // Three wrong fields, all shown at once under their fields after one submit.
    await form.getByLabel('From').fill('yesterday');
    await form.getByLabel('Schedule preset').selectOption('custom');
    await form.locator('#f-schedule').fill('61 * * * *');
    await expect(form.getByTestId('schedule-preview')).toContainText('not a valid cron expression');
    await deliveries.create();
    await expect(form.getByTestId('delivery-problem')).toContainText('3 fields need a change');
    // Named once each: beside the field; the summary links to them, the preview does not repeat them.
    await expect(form.getByTestId('delivery-problem').getByRole('link')).toHaveText(['Name', 'From', 'Schedule']);
    await expect(form.getByText('Did you mean "today-1d"?')).toHaveCount(1);
    await expect(form.getByTestId('delivery-preview')).toHaveText('No count until the filters marked above are put right.');
    await expect(deliveries.fieldError('f-name')).toHaveText('is required');
    await expect(deliveries.fieldError('f-from')).toContainText('Did you mean "today-1d"?');
    await expect(deliveries.fieldError('f-schedule')).toContainText('not a valid cron expression');
    await expect(form.getByLabel('From')).toHaveAttribute('aria-invalid', 'true');
    // Put right, it is created and listed, with the filters as chosen.
    await form.getByLabel('Name').fill('Tennis upcoming');
    await form.getByLabel('From').fill('today-1d');
    await form.getByLabel('Schedule preset').selectOption('weekdays');
    await expect(form.locator('#f-schedule')).toHaveValue('0 6 * * 1-5');
    await deliveries.create();
    const created = deliveries.delivery('Tennis upcoming');
    await expect(created).toBeVisible();
    for (const filter of ['sport Tennis', 'status upcoming', 'from today-1d', 'to today+1d'])
      await expect(created.getByTestId('filters')).toContainText(filter);
    await expect(form.getByTestId('delivery-problem')).toHaveCount(0);
    // The form starts clean for the next one: nothing of this delivery's name, filters or schedule carried over.
    await expect(form.getByLabel('Name')).toHaveValue('');
    await expect(form.getByLabel('Sport', { exact: true })).toHaveValue('');
    await expect(form.getByLabel('Status')).toHaveValue('');
    await expect(form.getByLabel('From')).toHaveValue('today-1d');
    await expect(form.locator('#f-schedule')).toHaveValue('0 6 * * *');
    // A delivery of changes has two kinds (what it delivers, the kind of change): each label names its own control.
    await form.getByLabel('What').selectOption('changes');
    await expect(form.getByLabel('Kind of change').locator('option[value=withdrawn]')).toHaveCount(1);
    const ids = await page.locator('[id]').evaluateAll((els) => els.map((el) => el.id));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    await form.getByLabel('What').selectOption('picks');
    // Run now: the note follows the run to its end without a reload.
    await deliveries.runNow('Tennis upcoming');
    await expect(page.getByTestId('run-note')).toHaveText(/^“Tennis upcoming” ran: (complete|complete, but empty)\.$/, { timeout: 30_000 });
    await expect(created.getByTestId('last-run')).not.toContainText('running');
  });
});
