import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { expect, signIn } from './fixtures';
import { eventPages, postToken, type Event } from './events';
import { waitUntil } from './instances';

/**
 * Consumer webhooks driven from a token's page in Chromium (events.spec.ts runs it on its portal): a receiver on
 * loopback checks every signature with the Standard Webhooks library's own `verify`; it is down while a burst is
 * recorded and gets every event in order once back; "Send a test event", "Resend this event" and "Resend every
 * event after it" work from the page; the page fits a phone and reads in the dark, with no serious axe finding.
 */

interface Received {
  id: string;
  type: string;
  data: Event;
}

/** A receiver on loopback: 503 to the next `down` requests; otherwise it verifies each request with the secret it is given. */
async function startReceiver() {
  const state = { secret: '', down: 0, requests: 0, accepted: [] as Received[], refused: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      if (state.down > 0) {
        state.down -= 1;
        return res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '5' }).end('receiver down for maintenance');
      }
      try {
        const body = new Webhook(state.secret).verify(Buffer.concat(chunks), req.headers as Record<string, string>) as Omit<Received, 'id'>;
        state.accepted.push({ id: String(req.headers['webhook-id']), ...body });
        res.writeHead(200).end('ok');
      } catch {
        state.refused += 1;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/picks-hook`, close: () => server.close() };
}

export async function webhooksFromThePage(options: {
  page: Page;
  browser: Browser;
  origin: string;
  admin: string;
  /** Moves the sandbox's clock and has the portal poll: new events. */
  moveAndPoll: () => Promise<void>;
  lastSeq: () => number;
}) {
  const { page, origin } = options;
  const receiver = await startReceiver();
  try {
    const token = await postToken(origin, options.admin, 'hooked', { content: ['picks', 'results', 'changes'] });
    await signIn(page, 'admin', `/tokens/${token.id}`, origin);
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    receiver.state.secret = (await page.getByTestId('webhook-secret-value').textContent())!.trim();
    expect(receiver.state.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const card = page.getByTestId('webhook');
    await expect(card).toHaveAttribute('data-state', 'delivering');
    const start = Number((await card.getByTestId('webhook-cursor').textContent())!.match(/#(\d+)/)![1]);
    expect(start).toBe(options.lastSeq());

    // Clicked right after load: the page's own HTML has the button disabled until the page can handle the click,
    // so no click is swallowed before hydration (issue 72).
    const html = await (await fetch(`${origin}/tokens/${token.id}`, { headers: { cookie: options.admin } })).text();
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*>Send a test event<\/button>/);
    await page.reload();
    await card.getByRole('button', { name: 'Send a test event' }).click();
    await expect(card.getByTestId('webhook-result')).toHaveText(/^Test event delivered: HTTP 200 in \d+ ms\.$/);
    expect(receiver.state.accepted.map((m) => m.type)).toEqual(['webhook.test']);

    // Down for one attempt while a burst is recorded: the page says it is failing, with the code, until it is back.
    receiver.state.down = 1;
    await options.moveAndPoll();
    const expected = await eventPages(origin, token.token, start);
    expect(expected.length).toBeGreaterThan(5);
    await waitUntil(async () => receiver.state.requests > 1, 'a first attempt', 15_000);
    await page.reload();
    await expect(card).toHaveAttribute('data-state', 'failing');
    await expect(card.getByTestId('webhook-why')).toContainText('answered HTTP 503');
    await expect(card.locator('[data-testid=webhook-attempts] tbody tr[data-outcome=failed]').first()).toContainText('503');
    // What was sent and what came back, from the attempt's own log: the signed body, the receiver's answer.
    await card
      .locator('[data-testid=webhook-attempts] tbody tr[data-outcome=failed]')
      .first()
      .getByRole('button', { name: 'Show' })
      .click();
    const exchange = card.getByTestId('attempt-exchange');
    await expect(exchange.getByRole('region', { name: 'Headers sent' })).toContainText(/webhook-signature: v1,/);
    await expect(exchange.getByRole('region', { name: 'Body sent' })).toContainText(`"seq": ${expected[0]!.seq}`);
    await expect(exchange).toContainText('HTTP 503');
    await expect(exchange.getByRole('region', { name: 'Headers answered' })).toContainText('retry-after: 5');
    await expect(exchange.getByRole('region', { name: 'Body answered' })).toHaveText('receiver down for maintenance');
    expect(await exchange.textContent()).not.toContain(receiver.state.secret.slice(6));

    // Back (its next try, 5 s on): every event, in order, once, each signature checked by the library.
    await waitUntil(async () => receiver.state.accepted.length > expected.length, `${expected.length} events`, 60_000);
    const events = receiver.state.accepted.slice(1);
    expect(events.map((m) => m.data.seq)).toEqual(expected.map((e) => e.seq));
    expect(events.map((m) => m.data)).toEqual(expected);
    expect(events.map((m) => m.id)).toEqual(expected.map((e) => `evt_${e.seq}`));
    expect(receiver.state.refused).toBe(0);
    // Each event taken is one record of the token's use (flushed to the store every 2 s), as each read through the pages was.
    const records = async () => {
      const res = await fetch(`${origin}/api/tokens/${token.id}/usage`, { headers: { cookie: options.admin } });
      return ((await res.json()) as { days: { records: number }[] }).days.reduce((sum, day) => sum + day.records, 0);
    };
    await waitUntil(async () => (await records()) === 2 * expected.length, `${2 * expected.length} records of use`, 15_000);
    await page.reload();
    await expect(card).toHaveAttribute('data-state', 'delivering');
    await expect(card.getByTestId('webhook-cursor')).toContainText(`event #${expected.at(-1)!.seq}`);

    // Resend one event, then every event after the third, from the page.
    const one = expected[1]!;
    await card.getByLabel('Event id').fill(String(one.seq));
    await card.getByRole('button', { name: 'Resend this event' }).click();
    await expect(card.getByTestId('webhook-result')).toHaveText(new RegExp(`^Event #${one.seq} sent again: delivered: HTTP 200`));
    expect(receiver.state.accepted.at(-1)).toMatchObject({ id: `evt_${one.seq}`, data: one });
    const before = receiver.state.accepted.length;
    await card.getByLabel('Event id').fill(String(expected[2]!.seq));
    await card.getByRole('button', { name: 'Resend every event after it' }).click();
    await expect(card.getByTestId('webhook-result')).toContainText(`Every event after #${expected[2]!.seq} is being sent again`);
    const again = expected.slice(3);
    await waitUntil(async () => receiver.state.accepted.length >= before + again.length, 'the resent events', 30_000);
    expect(receiver.state.accepted.slice(before).map((m) => m.data.seq)).toEqual(again.map((e) => e.seq));
    // A wrong id is named beside its field.
    await card.getByLabel('Event id').fill('soon');
    await card.getByRole('button', { name: 'Resend this event' }).click();
    await expect(card.getByTestId('webhook-problem')).toContainText('must be an event id');

    await page.reload();
    await expect(card.locator('[data-testid=webhook-attempts] tbody tr')).toHaveCount(Math.min(20, receiver.state.requests));
    // The token's own requests (the event pages read above), with their status and records.
    const requests = page.getByTestId('token-requests');
    await expect(requests.locator('tbody tr[data-status="200"]').filter({ hasText: '/api/v1/events' }).first()).toBeVisible();
    const axe = await new AxeBuilder({ page })
      .include('[data-testid=webhooks]')
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    // A phone in the dark: nothing wider than the screen, and axe still content.
    const phone = await options.browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await phone.addCookies(await page.context().cookies(origin));
    const small = await phone.newPage();
    await small.goto(`${origin}/tokens/${token.id}`);
    await expect(small.getByTestId('webhook')).toBeVisible();
    expect(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    const dark = await new AxeBuilder({ page: small }).include('[data-testid=webhooks]').withTags(['wcag2a', 'wcag2aa']).analyze();
    expect(dark.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await phone.close();
  } finally {
    receiver.close();
  }
}
