import { expect, signIn, snapshot, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { jsonSignIn, sessionCookie } from '../support/session';
import { UsersPage } from '../support/pages/users-page';
import { AuditPage } from '../support/pages';

/** Users managed in the portal by an admin, in Chromium: the whole journey, the last-admin guard, and who may not. */

const origin = `http://127.0.0.1:${E2E.port}`;
const NEW = 'journey@example.com';

test('an admin adds, changes, resets, disables, enables and removes a user; each change works at once and is audited', async ({ page }) => {
  await signIn(page, 'admin', '/admin/users');
  const users = new UsersPage(page);
  await users.open();
  // Two wrong fields in one answer, each beside its field, and what was typed kept (the password aside).
  await users.add.getByLabel('Email').fill('not-an-address');
  await users.add.getByLabel('Role').selectOption('editor');
  await users.add.getByLabel(/^Password/).fill('short');
  await users.add.getByRole('button', { name: 'Add user' }).click();
  await expect(users.result()).toHaveText('2 fields need a change.');
  await expect(users.add.locator('[data-field-error="user-email"]')).toHaveText('"not-an-address" is not an email address');
  await expect(users.add.locator('[data-field-error="user-password"]')).toContainText('at least 10 characters');
  await expect(users.add.getByLabel('Email')).toHaveValue('not-an-address');
  await expect(users.add.getByLabel('Role')).toHaveValue('editor');
  const first = await users.addUser(NEW, 'editor');
  expect(first).toMatch(/^[A-Za-z0-9_-]{16}$/);
  await expect(users.result()).toContainText(`Added ${NEW} as editor`);
  expect((await jsonSignIn(origin, NEW, first)).signedIn).toBe(true);

  await expect(users.cell(NEW, 'role')).toHaveText('editor');
  await users.changeRole(NEW, 'viewer');
  await expect(users.cell(NEW, 'role')).toHaveText('viewer');
  await expect(users.form(NEW).getByLabel(`Role of ${NEW}`)).toHaveValue('viewer'); // the choice follows the stored role

  const second = await users.resetPassword(NEW);
  expect(second).not.toBe(first);
  expect((await jsonSignIn(origin, NEW, first)).signedIn).toBe(false);
  expect((await jsonSignIn(origin, NEW, second)).signedIn).toBe(true);

  await users.press(NEW, 'Disable');
  await expect(users.cell(NEW, 'status')).toHaveText('disabled');
  expect((await jsonSignIn(origin, NEW, second)).signedIn).toBe(false);
  await users.press(NEW, 'Enable');
  await expect(users.cell(NEW, 'status')).toHaveText('enabled');
  await snapshot(page, 'admin-users');

  await users.remove(NEW);
  await expect(users.row(NEW)).toHaveCount(0);
  expect((await jsonSignIn(origin, NEW, second)).signedIn).toBe(false);

  await new AuditPage(page).visit('actor=admin%40demo.picks.test');
  // The action cell reads "action · target": the action is what comes before the dot.
  const actions = (await page.locator('[data-testid="audit-table"] tbody tr [data-cell="action"]').allTextContents()).map(
    (text) => text.split(' · ')[0]!,
  );
  for (const action of ['user.add', 'user.role', 'user.password', 'user.disable', 'user.enable', 'user.remove'])
    expect(actions).toContain(action);
  await snapshot(page, 'admin-audit');
});

test('the last enabled admin can be neither demoted, disabled nor removed', async ({ page }) => {
  await signIn(page, 'admin', '/admin/users');
  const users = new UsersPage(page);
  await users.open();
  const me = 'admin@demo.picks.test';
  await users.changeRole(me, 'viewer');
  await expect(users.result(me)).toContainText(`${me} is the last enabled admin`);
  await users.press(me, 'Disable');
  await expect(users.result(me)).toContainText('last enabled admin');
  await users.remove(me);
  await expect(users.result(me)).toContainText('last enabled admin');
  await page.reload();
  await expect(users.cell(me, 'role')).toHaveText('admin');
  await new AuditPage(page).visit('action=user.role&outcome=failed');
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
  await new AuditPage(page).visit('outcome=sometimes');
  await expect(page.locator('[data-error-code="INVALID_FILTERS"]')).toContainText('outcome');
  await expect(page.getByTestId('audit-table')).toHaveCount(0);
});
