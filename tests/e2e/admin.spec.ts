import { expect, signIn, snapshot, test } from './fixtures';
import { E2E } from './ports';
import { jsonSignIn, sessionCookie } from './support/session';

/** Users managed in the portal by an admin, in Chromium: the whole journey, the last-admin guard, and who may not. */

const origin = `http://127.0.0.1:${E2E.port}`;
const NEW = 'journey@example.com';

test('an admin adds, changes, resets, disables, enables and removes a user; each change works at once and is audited', async ({ page }) => {
  await signIn(page, 'admin', '/admin/users');
  await page.goto('/admin/users');
  const add = page.getByRole('form', { name: 'Add a user' });
  await add.getByLabel('Email').fill(NEW);
  await add.getByLabel('Role').selectOption('editor');
  await add.getByRole('button', { name: 'Add user' }).click();
  const first = await add.getByTestId('one-time-password').textContent();
  expect(first).toMatch(/^[A-Za-z0-9_-]{16}$/);
  await expect(add.getByTestId('admin-result')).toContainText(`Added ${NEW} as editor`);
  expect((await jsonSignIn(origin, NEW, first!)).signedIn).toBe(true);

  const row = page.locator(`tr[data-user="${NEW}"]`);
  await expect(row.locator('[data-cell="role"]')).toHaveText('editor');
  const form = page.getByRole('form', { name: `Change ${NEW}` });
  await form.getByLabel(`Role of ${NEW}`).selectOption('viewer');
  await form.getByRole('button', { name: 'Change role' }).click();
  await expect(row.locator('[data-cell="role"]')).toHaveText('viewer');
  await expect(form.getByLabel(`Role of ${NEW}`)).toHaveValue('viewer'); // the choice follows the stored role

  await form.getByRole('button', { name: 'Reset password' }).click();
  const second = await form.getByTestId('one-time-password').textContent();
  expect(second).not.toBe(first);
  expect((await jsonSignIn(origin, NEW, first!)).signedIn).toBe(false);
  expect((await jsonSignIn(origin, NEW, second!)).signedIn).toBe(true);

  await form.getByRole('button', { name: 'Disable' }).click();
  await expect(row.locator('[data-cell="status"]')).toHaveText('disabled');
  expect((await jsonSignIn(origin, NEW, second!)).signedIn).toBe(false);
  await form.getByRole('button', { name: 'Enable' }).click();
  await expect(row.locator('[data-cell="status"]')).toHaveText('enabled');
  await snapshot(page, 'admin-users');

  page.once('dialog', (dialog) => void dialog.accept());
  await form.getByRole('button', { name: 'Remove' }).click();
  await expect(row).toHaveCount(0);
  expect((await jsonSignIn(origin, NEW, second!)).signedIn).toBe(false);

  await page.goto(`/admin/audit?actor=admin%40demo.picks.test`);
  const actions = await page.locator('[data-testid="audit-table"] tbody tr td:nth-child(5)').allTextContents();
  for (const action of ['user.add', 'user.role', 'user.password', 'user.disable', 'user.enable', 'user.remove'])
    expect(actions).toContain(action);
  await snapshot(page, 'admin-audit');
});

test('the last enabled admin can be neither demoted, disabled nor removed', async ({ page }) => {
  await signIn(page, 'admin', '/admin/users');
  await page.goto('/admin/users');
  const me = 'admin@demo.picks.test';
  const form = page.getByRole('form', { name: `Change ${me}` });
  await form.getByLabel(`Role of ${me}`).selectOption('viewer');
  await form.getByRole('button', { name: 'Change role' }).click();
  await expect(form.getByTestId('admin-result')).toContainText(`${me} is the last enabled admin`);
  await form.getByRole('button', { name: 'Disable' }).click();
  await expect(form.getByTestId('admin-result')).toContainText('last enabled admin');
  page.once('dialog', (dialog) => void dialog.accept());
  await form.getByRole('button', { name: 'Remove' }).click();
  await expect(form.getByTestId('admin-result')).toContainText('last enabled admin');
  await page.reload();
  await expect(page.locator(`tr[data-user="${me}"] [data-cell="role"]`)).toHaveText('admin');
  await page.goto('/admin/audit?action=user.role&outcome=failed');
  await expect(page.getByTestId('audit-table')).toContainText('LAST_ADMIN');
});

test('other roles get 403 for the admin pages', async () => {
  for (const role of ['viewer', 'editor', 'manager'] as const) {
    const cookie = await sessionCookie(origin, role);
    for (const path of ['/admin/users', '/admin/audit']) {
      const res = await fetch(`${origin}${path}`, { headers: { cookie }, redirect: 'manual' });
      expect(res.status, `${role} ${path}`).toBe(403);
    }
  }
});

test('bad audit filters on the page show the error, not an empty table', async ({ page }) => {
  await signIn(page, 'admin', '/admin/audit?outcome=sometimes');
  await page.goto('/admin/audit?outcome=sometimes');
  await expect(page.locator('[data-error-code="INVALID_FILTERS"]')).toContainText('outcome');
  await expect(page.getByTestId('audit-table')).toHaveCount(0);
});
