import { expect, type Locator, type Page } from '@playwright/test';
import { PortalPage } from './portal-page';

/** /admin/users: the form that adds a user, and each user's row and form (role, password, disable, remove). */
export class UsersPage extends PortalPage {
  readonly add: Locator;

  constructor(page: Page, origin = '') {
    super(page, '/admin/users', origin);
    this.add = page.getByRole('form', { name: 'Add a user' });
  }

  async open() {
    const response = await this.visit();
    await expect(this.add).toBeVisible();
    return response;
  }

  /** Adds a user; returns the one-time password shown once. */
  async addUser(email: string, role: string): Promise<string> {
    await this.add.getByLabel('Email').fill(email);
    await this.add.getByLabel('Role').selectOption(role);
    await this.add.getByRole('button', { name: 'Add user' }).click();
    return (await this.add.getByTestId('one-time-password-value').textContent()) ?? '';
  }

  row(email: string): Locator {
    return this.page.locator(`tr[data-user="${email}"]`);
  }

  cell(email: string, cell: 'role' | 'status'): Locator {
    return this.row(email).locator(`[data-cell="${cell}"]`);
  }

  form(email: string): Locator {
    return this.page.getByRole('form', { name: `Change ${email}` });
  }

  /** The answer under a user's form (or under the add form). */
  result(email?: string): Locator {
    return (email ? this.form(email) : this.add).getByTestId('admin-result');
  }

  async changeRole(email: string, role: string) {
    await this.form(email).getByLabel(`Role of ${email}`).selectOption(role);
    await this.form(email).getByRole('button', { name: 'Change role' }).click();
  }

  /** Resets a user's password; returns the new one-time password. */
  async resetPassword(email: string): Promise<string> {
    await this.form(email).getByRole('button', { name: 'Reset password' }).click();
    return (await this.form(email).getByTestId('one-time-password-value').textContent()) ?? '';
  }

  async press(email: string, button: 'Disable' | 'Enable') {
    await this.form(email).getByRole('button', { name: button }).click();
  }

  /** Removes a user, accepting the browser's confirmation. */
  async remove(email: string) {
    this.page.once('dialog', (dialog) => void dialog.accept());
    await this.form(email).getByRole('button', { name: 'Remove' }).click();
  }
}
