import { describe, expect, it } from 'vitest';
import { ADMIN, answer, HEIR, LEAVER, post, reviewPortal } from '../support/review-portal';

/**
 * The fourth security review's webhook findings, through the portal's own handlers (lib/http/webhooks.ts, what
 * the route handlers call) against the sandbox over real HTTP on the embedded store, sending to a receiver on
 * loopback: a resend pays the token's rate and quota and is refused past them; tests and resends are limited per
 * person and per webhook; a webhook set up by someone else waits for a token's new owner, who alone sees its whole
 * URL and confirms it; one whose maker may no longer act waits too; a receipt is paid for.
 */

const { portal, bearer, tokenOf, webhookOf, lastSeq, actions } = reviewPortal();

describe('a resend is a delivery: it pays the token’s rate and quota', () => {
  it('sends a resent event for one record and one request, and refuses it (429) once the quota is spent, sending nothing', async () => {
    const { resendResponse } = await import('@/lib/http/webhooks');
    const { reserveRecords } = await import('@/lib/tokens/limits');
    const token = await tokenOf(LEAVER.email, { dailyRecords: 3 });
    const hook = await webhookOf(LEAVER, token);
    const seq = await lastSeq();
    const before = portal.received.length;
    const sent = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(sent.status).toBe(200);
    expect(sent.json.attempt).toMatchObject({ outcome: 'delivered', seq, trigger: 'resend' });
    expect(portal.received.slice(before)).toEqual([`evt_${seq}`]);
    // One record of three taken: two are left, and then none.
    expect((await reserveRecords(token, 5)).granted).toBe(2);
    const refused = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA_SPENT', message: expect.stringContaining('its 3 records for today') });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const range = await answer(resendResponse(post({ after: seq - 2 }), LEAVER, token.id, hook));
    expect(range.status).toBe(429);
    expect(range.json.error.code).toBe('QUOTA_SPENT');
    expect(portal.received.slice(before)).toEqual([`evt_${seq}`]);
  });

  it('takes a request of the token’s rate for each resend and test, refused past it', async () => {
    const { resendResponse, testResponse } = await import('@/lib/http/webhooks');
    const token = await tokenOf(LEAVER.email, { ratePerMinute: 2 });
    const hook = await webhookOf(LEAVER, token);
    const seq = await lastSeq();
    expect((await answer(testResponse(LEAVER, token.id, hook))).status).toBe(200);
    expect((await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook))).status).toBe(200);
    const refused = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA_SPENT', message: expect.stringContaining('2 requests a minute') });
  });
});

describe('tests and resends are limited per person and per webhook', () => {
  it('answers 429 with Retry-After past five test events a minute to one webhook, sending and auditing nothing more', async () => {
    const { testResponse } = await import('@/lib/http/webhooks');
    const token = await tokenOf(HEIR.email);
    const hook = await webhookOf(HEIR, token);
    const audited = await actions('token.webhook.test');
    const before = portal.received.length;
    const answers = await Promise.all(Array.from({ length: 8 }, async () => answer(testResponse(HEIR, token.id, hook))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.json.error.code).toBe('TOO_MANY_TRIES');
    expect(Number(refused[0]!.retryAfter)).toBeGreaterThan(0);
    expect(portal.received.length - before).toBe(5);
    expect((await actions('token.webhook.test')) - audited).toBe(5);
  });
});

describe('a leaver’s webhook stops receiving', () => {
  it('waits when its token is given to another owner, until the new owner confirms it seeing its whole URL', async () => {
    const { tokenResponse } = await import('@/lib/http/tokens');
    const { confirmResponse, endpointsResponse, testResponse } = await import('@/lib/http/webhooks');
    const { sendDue } = await import('@/lib/webhooks/start');
    const { findTokenWebhook } = await import('@/lib/store/token-webhooks');
    const token = await tokenOf(LEAVER.email);
    const hook = await webhookOf(LEAVER, token);
    const { updateUser } = await import('@/lib/store/users');
    await updateUser(portal.store.db, LEAVER.email, { disabled: true });
    const patch = new Request('http://portal.test/x', {
      method: 'PATCH',
      body: JSON.stringify({ owner: HEIR.email }),
      headers: { 'content-type': 'application/json' },
    });
    expect((await answer(tokenResponse(patch, ADMIN, token.id))).status).toBe(200);
    expect(await actions('token.webhook.await')).toBeGreaterThanOrEqual(1);
    // The feed moves on: nothing goes to the leaver's URL.
    const { moveCursorBack } = { moveCursorBack: await findTokenWebhook(portal.store.db, hook) };
    expect(moveCursorBack!.cursor).toBe(await lastSeq());
    const { saveTokenWebhook } = await import('@/lib/store/token-webhooks');
    await saveTokenWebhook(portal.store.db, { ...moveCursorBack!, cursor: moveCursorBack!.cursor - 3, updatedMs: Date.now() + 1 }, true);
    const before = portal.received.length;
    const context = { secretKey: process.env.DELIVERY_SECRET_KEY!, allowPrivate: true, retentionDays: 30 };
    await sendDue(portal.store, context);
    expect(portal.received.length).toBe(before);
    const asAdmin = (await answer(endpointsResponse(new Request('http://portal.test/x'), ADMIN, token.id))).json.data[0];
    expect(asAdmin).toMatchObject({
      state: 'unconfirmed',
      wholeUrl: null,
      why: expect.stringContaining(`until ${HEIR.email} confirms it`),
    });
    expect(JSON.stringify(asAdmin)).not.toContain('secret-path');
    const asHeir = (await answer(endpointsResponse(new Request('http://portal.test/x'), HEIR, token.id))).json.data[0];
    expect(asHeir).toMatchObject({ state: 'unconfirmed', wholeUrl: portal.receiverUrl, confirmedBy: LEAVER.email });
    expect((await answer(testResponse(HEIR, token.id, hook))).json.error.details.webhook).toMatch(/cannot send now/);
    // Only the owner confirms; then it sends what it was owed, in order.
    expect((await answer(confirmResponse(ADMIN, token.id, hook))).status).toBe(403);
    const confirmed = await answer(confirmResponse(HEIR, token.id, hook));
    expect(confirmed.json).toMatchObject({ state: 'delivering', confirmedBy: HEIR.email, wholeUrl: null });
    expect(await actions('token.webhook.confirm')).toBe(1);
    await sendDue(portal.store, context);
    expect(portal.received.length - before).toBe(3);
  });

  it('waits when the admin who set it up on someone’s token may no longer act', async () => {
    const { endpointsResponse } = await import('@/lib/http/webhooks');
    const { putUser, updateUser } = await import('@/lib/store/users');
    const other = { email: 'otto@example.com', role: 'admin' as const };
    await putUser(portal.store.db, { ...other, passwordHash: 'x' });
    const token = await tokenOf(HEIR.email);
    await webhookOf(other, token);
    const view = async () => (await answer(endpointsResponse(new Request('http://portal.test/x'), HEIR, token.id))).json.data[0];
    expect((await view()).state).toBe('delivering');
    await updateUser(portal.store.db, other.email, { role: 'viewer' });
    expect(await view()).toMatchObject({
      state: 'unconfirmed',
      why: expect.stringContaining('may no longer act'),
      wholeUrl: portal.receiverUrl,
    });
  });
});

describe('a receipt is paid for', () => {
  it('costs a record of the daily quota, and is refused (429) past it without being worked out', async () => {
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const token = await tokenOf(HEIR.email, { dailyRecords: 1 });
    const last = await lastSeq();
    const receipt = () =>
      answer(
        serveV1OnNext(
          new Request(`http://portal.test/api/v1/events/receipt?from=${last - 9}&to=${last}`, {
            headers: { authorization: `Bearer ${bearer.get(token.id)}` },
          }),
        ),
      );
    const one = await receipt();
    expect(one.status).toBe(200);
    expect(one.json.receipt).toMatchObject({ from: last - 9, to: last });
    const spent = await receipt();
    expect(spent.status).toBe(429);
    expect(spent.json.error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('its 1 records for today') });
  });
});
