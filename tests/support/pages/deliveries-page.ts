import type { Locator, Page } from '@playwright/test';
import { PortalPage } from './portal-page';
import { STAFF } from '../fixtures';

/** /deliveries on a portal of a spec's own: sign-in, the list (a row per delivery) and the "New delivery" form. */
export class DeliveriesPage extends PortalPage {
  readonly form: Locator;

  constructor(page: Page, origin: string) {
    super(page, '/deliveries', origin);
    this.form = page.getByRole('form', { name: 'New delivery' });
  }

  /** Signs in as the editor through the form, landing on /deliveries. */
  async openAsEditor() {
    await this.page.goto(`${this.origin}/login?callbackUrl=/deliveries`);
    await this.page.getByLabel('Email').fill(STAFF.editor.email);
    await this.page.getByLabel('Password').fill(STAFF.editor.password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await this.page.waitForURL((url) => url.pathname === '/deliveries');
  }

  delivery(name: string): Locator {
    return this.page.locator(`[data-delivery="${name}"]`);
  }

  field(label: string): Locator {
    return this.form.getByLabel(label, { exact: true });
  }

  /** The problem shown under a field of the form (by its id: f-name, f-from, f-schedule…). */
  fieldError(id: string): Locator {
    return this.form.locator(`[data-field-error="${id}"]`);
  }

  async create() {
    await this.form.getByRole('button', { name: 'Create delivery' }).click();
  }

  async runNow(name: string) {
    await this.delivery(name).getByRole('button', { name: 'Run now' }).click();
  }
}
