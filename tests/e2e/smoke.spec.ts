import { expect, signIn, test } from '../support/fixtures';
import { LicencePage, LoginPage } from '../support/pages';

test('a signed-out visitor is sent to sign in, and comes back after', async ({ page }) => {
  await new LicencePage(page).visit();
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Flicence$/);
  await signIn(page, 'viewer', '/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.getByText('Northwind Media Group')).toBeVisible();
  await expect(page.getByTestId('health-status')).toHaveText(/ok/);
});

test('a wrong password is refused with a clear message', async ({ page }) => {
  await new LoginPage(page).visit();
  await page.getByLabel('Email').fill('viewer@demo.picks.test');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#login-error')).toHaveText('That email and password do not match an account.');
  await expect(page).toHaveURL(/\/login/);
});

test('beside the sandbox the sign-in page lists the demo sign-ins npm start prints', async ({ page }) => {
  await new LoginPage(page).visit();
  const demo = page.getByTestId('demo-sign-ins');
  await demo.getByText('Demo sign-ins (sandbox only)').click();
  await expect(demo.getByRole('listitem')).toHaveText([
    'viewerviewer@demo.picks.testdemo-viewer-pass',
    'editoreditor@demo.picks.testdemo-editor-pass',
    'managermanager@demo.picks.testdemo-manager-pass',
    'adminadmin@demo.picks.testdemo-admin-pass',
  ]);
});
