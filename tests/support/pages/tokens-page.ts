import { expect, type Locator, type Page } from '@playwright/test';
import { PortalPage } from './portal-page';

/** /tokens and a token's page: the "Make a token" form, the token shown once, the table, the use, revoking. */
export class TokensPage extends PortalPage {
  readonly form: Locator;
  readonly problem: Locator;
  readonly shown: Locator;

  constructor(page: Page, origin = '') {
    super(page, '/tokens', origin);
    this.form = page.getByRole('form', { name: 'Make a token' });
    this.problem = page.getByTestId('token-problem');
    this.shown = page.getByTestId('new-token-value');
  }

  async expectOpen() {
    await expect(this.page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  }

  /** Fills the form: ticks and unticks contents and sports, sets the name and the records a day. */
  async fill(values: { name?: string; dailyRecords?: string; tick?: string[]; untick?: string[] }) {
    for (const label of values.untick ?? []) await this.form.getByLabel(label, { exact: true }).uncheck();
    for (const label of values.tick ?? []) await this.form.getByLabel(label, { exact: true }).check();
    if (values.dailyRecords !== undefined) await this.form.getByLabel('Records a day').fill(values.dailyRecords);
    if (values.name !== undefined) await this.form.getByLabel('Name (the system that uses it)').fill(values.name);
  }

  async make() {
    await this.form.getByRole('button', { name: 'Make token' }).click();
  }

  row(name: string): Locator {
    return this.page.getByTestId('tokens-table').getByRole('row', { name: new RegExp(name) });
  }

  /** Opens a token's own page from the list or the overview. */
  async openToken(name: string) {
    await this.page.getByRole('link', { name }).click();
    await expect(this.page.getByRole('heading', { name })).toBeVisible();
  }

  usageRows(): Locator {
    return this.page.getByTestId('usage-table').locator('tbody tr');
  }

  /** Revokes the token whose page is open, accepting the confirmation. */
  async revoke() {
    this.page.once('dialog', (dialog) => void dialog.accept());
    await this.page.getByRole('button', { name: 'Revoke' }).click();
  }
}
