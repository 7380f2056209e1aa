import { describe, expect, it } from 'vitest';
import { answer, HEIR, reviewPortal } from '../support/review-portal';

/**
 * The fourth security review's other findings, on the same portal (tests/support/review-portal.ts): limits above
 * the ceilings do not survive a demotion; connection tests are limited per server; change-feed files take a walk
 * slot; the portal's check of a file vouches only for what its sealed audit trail records.
 */

const { portal, bearer, tokenOf, actions } = reviewPortal();

describe('limits above the ceilings do not survive a demotion', () => {
  it('caps an admin’s token at the editors’ ceilings once its owner is an editor, at request time', async () => {
    const { reserveRecords } = await import('@/lib/tokens/limits');
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const { putUser, updateUser } = await import('@/lib/store/users');
    const { forgetAccount } = await import('@/lib/auth/accounts');
    const boss = { email: 'bo@example.com', role: 'admin' as const };
    await putUser(portal.store.db, { ...boss, passwordHash: 'x' });
    const token = await tokenOf(boss.email, { ratePerMinute: 600, dailyRecords: 1_000 });
    const me = async () =>
      (
        await answer(
          serveV1OnNext(new Request('http://portal.test/api/v1/me', { headers: { authorization: `Bearer ${bearer.get(token.id)}` } })),
        )
      ).json.token;
    expect(await me()).toMatchObject({ ratePerMinute: 600, dailyRecords: 1_000 });
    const asAdmin = await reserveRecords(token, 10);
    expect(asAdmin.granted).toBe(10);
    await asAdmin.settle(0);
    await updateUser(portal.store.db, boss.email, { role: 'editor' });
    forgetAccount(boss.email);
    expect(await me()).toMatchObject({ ratePerMinute: 50, dailyRecords: 5 });
    expect((await reserveRecords(token, 10)).granted).toBe(5);
    const spent = await answer(
      serveV1OnNext(
        new Request('http://portal.test/api/v1/picks?limit=1', { headers: { authorization: `Bearer ${bearer.get(token.id)}` } }),
      ),
    );
    expect(spent.status).toBe(429);
    expect(spent.json.error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('its 5 records') });
  });
});

describe('a connection test is limited', () => {
  it('answers 429 past five tests a minute of one server, auditing nothing more', async () => {
    const { insertDelivery } = await import('@/lib/store/deliveries');
    const { testResponse } = await import('@/lib/http/deliveries');
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    const destination = {
      type: 'postgres' as const,
      host: '127.0.0.1',
      port: 9,
      database: 'partner',
      user: 'loader',
      ssl: 'disable',
      schema: 's',
      table: 't',
    };
    await insertDelivery(portal.store.db, {
      id: 'dlv_00000000000000aa',
      name: 'Warehouse',
      kind: 'picks',
      format: 'jsonl',
      filters: {},
      schedule: '0 6 * * *',
      destination,
      secret: sealSecret('{"password":"pw"}', process.env.DELIVERY_SECRET_KEY!, secretBinding(destination)!),
      createdBy: HEIR.email,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      lastDueMs: Date.now(),
    });
    const audited = await actions('delivery.test');
    const answers = [];
    for (let i = 0; i < 7; i += 1) answers.push(await answer(testResponse('dlv_00000000000000aa', HEIR)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers[0]!.json.steps.map((s: { step: string }) => s.step)).toEqual(['address', 'connect']);
    expect(answers[5]!.json.error.code).toBe('TOO_MANY_TRIES');
    expect((await actions('delivery.test')) - audited).toBe(5);
    // Paused without its password: the stored destination goes back to the check as it was given, its secret kept.
    const { patchResponse } = await import('@/lib/http/deliveries');
    const { findDelivery } = await import('@/lib/store/deliveries');
    const before = (await findDelivery(portal.store.db, 'dlv_00000000000000aa'))!;
    const paused = await answer(
      patchResponse(
        'dlv_00000000000000aa',
        new Request('http://portal.test/x', { method: 'PATCH', body: '{"paused":true}', headers: { 'content-type': 'application/json' } }),
        HEIR,
      ),
    );
    expect(paused.status, JSON.stringify(paused.json)).toBe(200);
    const after = (await findDelivery(portal.store.db, 'dlv_00000000000000aa'))!;
    expect(after).toMatchObject({ paused: true, secret: before.secret, destination: before.destination });
  });

  it('counts webhook deliveries by their URL’s host: two of them to one server share its five tests', async () => {
    const { insertDelivery } = await import('@/lib/store/deliveries');
    const { testResponse } = await import('@/lib/http/deliveries');
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    for (const [id, path] of [
      ['dlv_00000000000000ab', '/a'],
      ['dlv_00000000000000ac', '/b'],
    ] as const) {
      const destination = { type: 'webhook' as const, url: `http://127.0.0.1:9${path}` };
      await insertDelivery(portal.store.db, {
        id,
        name: `Hook ${path}`,
        kind: 'picks',
        format: 'csv',
        filters: {},
        schedule: '0 6 * * *',
        destination,
        secret: sealSecret('s'.repeat(20), process.env.DELIVERY_SECRET_KEY!, secretBinding(destination)!),
        createdBy: HEIR.email,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        lastDueMs: Date.now(),
      });
    }
    // Another editor than the one above, whose ten tests a minute are spent: only the server's five count here.
    const tester = { email: 'ted@example.com', role: 'editor' as const };
    const statuses = [];
    for (const id of ['dlv_00000000000000ab', 'dlv_00000000000000ac', 'dlv_00000000000000ab', 'dlv_00000000000000ac'])
      for (let i = 0; i < 2; i += 1) statuses.push((await answer(testResponse(id, tester))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });
});

describe('change-feed files take a walk slot', () => {
  it('refuses a second file of one person while the first is read (429 TOO_MANY_WALKS), and gives the slot back at its end', async () => {
    const { changesResponse } = await import('@/lib/http/changes');
    const download = () => changesResponse(new Request('http://portal.test/api/changes?format=jsonl'), HEIR, null);
    const first = await download();
    expect(first.status).toBe(200);
    const second = await answer(download());
    expect(second.status).toBe(429);
    expect(second.json.error.code).toBe('TOO_MANY_WALKS');
    expect((await first.text()).split('\n').filter(Boolean).length).toBeGreaterThan(1);
    let third = await download();
    for (let i = 0; i < 50 && third.status === 429; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      third = await download();
    }
    expect(third.status).toBe(200);
    await third.text();
  });
});

describe('the portal’s check of a file vouches only for what it made', () => {
  it('refuses a validly signed manifest that its sealed audit trail does not record, whatever its signing time', async () => {
    const { createHash } = await import('node:crypto');
    const { startSigning, signDocument } = await import('@/lib/proof/signer');
    const { MANIFEST_TYPE, toManifest } = await import('@/lib/audit/manifest');
    const { recordAudit } = await import('@/lib/audit/record');
    const { checkFileResponse } = await import('@/lib/proof/check');
    await startSigning(portal.store);
    const body = 'id,sport\npk_1,Tennis\npk_2,Tennis\n';
    const sha256 = createHash('sha256').update(body).digest('hex');
    const entry = (await recordAudit({
      actor: HEIR.email,
      role: 'editor',
      action: 'export.picks',
      target: 'picks.csv',
      outcome: 'complete',
      records: 2,
      bytes: Buffer.byteLength(body),
      sha256,
    }))!;
    const check = async (file: string, manifest: unknown) => {
      const form = new FormData();
      form.set('file', new Blob([file]), 'picks.csv');
      form.set('jws', (await signDocument(manifest, MANIFEST_TYPE)).jws);
      const res = await answer(checkFileResponse(new Request('http://portal.test/api/proof/check', { method: 'POST', body: form })));
      return res.json as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
    };
    const made = toManifest(entry);
    const own = await check(body, made);
    expect(own.checks.find((c) => c.name === 'portal record')).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`audit entry ${entry.seq}`),
    });
    expect(own.ok).toBe(true);
    // Another file under the same entry's name, signed with the portal's own key: every recipient's check holds.
    const other = 'id,sport\npk_9,Tennis\n';
    const forged = { ...made, records: 1, bytes: Buffer.byteLength(other), sha256: createHash('sha256').update(other).digest('hex') };
    const refused = await check(other, forged);
    expect(refused.checks.filter((c) => c.name !== 'portal record').every((c) => c.ok)).toBe(true);
    expect(refused.ok).toBe(false);
    expect(refused.checks.find((c) => c.name === 'portal record')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('records another file'),
    });
    const nowhere = await check(other, { ...forged, id: 99_999, audit: { seq: 99_999, hash: 'x' } });
    expect(nowhere.checks.find((c) => c.name === 'portal record')?.detail).toMatch(/has no entry 99999: it never made this file/);
  });
});
