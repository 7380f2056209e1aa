import type { Page } from '@playwright/test';
import { expect, signInKept, snapshot, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { LicencePage } from '../support/pages';
import { DeliveriesPage } from '../support/pages/deliveries-page';
import { RecordsPage, recordsTable } from '../support/pages/records-page';
import { TokensPage } from '../support/pages/tokens-page';

/** Each upstream fault as a person meets it: a clear panel, a retry, never an empty table. */

async function expectErrorPanel(page: Page, code: string, text: RegExp) {
  const panel = page.locator(`[data-error-code="${code}"]`).first();
  await expect(panel).toBeVisible();
  await expect(panel).toContainText(text);
  if (code === 'INVALID_FILTERS') {
    // Input that can only fail again gets no Retry: what to change, and a way back to no filters.
    await expect(panel.getByRole('link', { name: /Retry/ })).toHaveCount(0);
    await expect(panel.getByTestId('error-next-step')).toHaveText(/^Change what is named above/);
    await expect(panel.getByRole('link', { name: 'Clear the filters' })).toBeVisible();
  } else await expect(panel.getByRole('link', { name: /Retry/ })).toBeVisible();
  await expect(page.getByTestId('empty-state')).toHaveCount(0);
  await expect(recordsTable(page)).toHaveCount(0);
  return panel;
}

test('invalid filters keep the form, say what is wrong and echo what was sent', async ({ page }) => {
  await signInKept(page, 'viewer');
  await new RecordsPage(page, '/picks').visit('status=finished&limit=500&sport=Football');
  const panel = await expectErrorPanel(page, 'INVALID_FILTERS', /status must be one of upcoming, live, settled, void/);
  await expect(panel).toContainText('limit must be at most 200');
  await expect(panel).toContainText('status = finished');
  await expect(page.getByRole('search').getByLabel('Sport', { exact: true })).toHaveValue('Football');
  await snapshot(page, 'error-invalid-filters');
});

test('a cursor the upstream refuses is its INVALID_FILTERS, with the requestId', async ({ page }) => {
  await signInKept(page, 'viewer');
  await new RecordsPage(page, '/picks').visit('cursor=not-a-real-cursor');
  const panel = await expectErrorPanel(page, 'INVALID_FILTERS', /filters are invalid/);
  await expect(panel).toContainText(/request req_[0-9a-f]+/);
});

test('a suspended licence: licence access unavailable', async ({ page }) => {
  const origin = `http://localhost:${E2E.suspendedPort}`;
  await signInKept(page, 'viewer', '/', origin);
  await new RecordsPage(page, '/picks', origin).visit();
  const panel = await expectErrorPanel(page, 'LICENCE_UNAVAILABLE', /Licence access is unavailable/);
  await expect(panel).toContainText(/request req_/);
  await new LicencePage(page, origin).visit();
  await expectErrorPanel(page, 'LICENCE_UNAVAILABLE', /Licence access is unavailable/);
  await snapshot(page, 'error-licence-unavailable');
});

test('a refused key: the portal’s key was refused, and the key is never shown', async ({ page }) => {
  const origin = `http://localhost:${E2E.badKeyPort}`;
  await signInKept(page, 'viewer', '/', origin);
  const response = await new RecordsPage(page, '/results', origin).visit();
  await expectErrorPanel(page, 'UPSTREAM_UNAUTHORIZED', /API key was refused/);
  expect(await response!.text()).not.toContain('e2e-wrong-key');
  expect(await page.content()).not.toContain('e2e-wrong-key');
});

test('throttling after retries: try again in N s', async ({ page }) => {
  const origin = `http://localhost:${E2E.throttledPort}`;
  await signInKept(page, 'viewer', '/', origin);
  for (let attempt = 0; attempt < 4; attempt += 1) {
    await new LicencePage(page, origin).visit();
    if (await page.locator('[data-error-code="THROTTLED"]').count()) break;
  }
  const panel = await expectErrorPanel(page, 'THROTTLED', /Try again in \d+ s/);
  await expect(panel.getByRole('link', { name: /Retry \(after \d+ s\)/ })).toBeVisible();
  await snapshot(page, 'error-throttled');
});

test('an unreachable upstream: a clear error page with retry', async ({ page }) => {
  const origin = `http://localhost:${E2E.downPort}`;
  await signInKept(page, 'viewer', '/', origin);
  await new RecordsPage(page, '/picks', origin).visit('sport=Football');
  await expectErrorPanel(page, 'UPSTREAM_UNAVAILABLE', /could not be reached/);
  await snapshot(page, 'error-upstream-down');
});

test('an unreachable upstream: sports and leagues are typed, and every form says why', async ({ page }) => {
  const origin = `http://localhost:${E2E.downPort}`;
  await signInKept(page, 'editor', '/', origin);
  const why = /The licence could not be read just now/;
  await new RecordsPage(page, '/picks', origin).visit('sport=Football');
  const filters = page.getByRole('search');
  await expect(filters.getByRole('textbox', { name: 'Sport' })).toHaveValue('Football');
  await expect(filters.getByText(why)).toHaveCount(2); // under Sport and League
  await new DeliveriesPage(page, origin).visit();
  const form = page.getByRole('form', { name: 'New delivery' });
  await expect(form.getByRole('textbox', { name: 'Sport' })).toBeVisible();
  await expect(form.getByText(why)).toHaveCount(2);
  await new TokensPage(page, origin).visit();
  await expect(
    page.getByRole('form', { name: 'Make a token' }).getByText(/The licence could not be read just now, so its sports are not listed/),
  ).toBeVisible();
});
