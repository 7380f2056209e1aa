import type { Locator, Page } from '@playwright/test';
import { PortalPage } from './portal-page';

/**
 * The portal's pages, one class each (app/**\/page.tsx): the specs open them and find their parts here. Pages with
 * richer forms have their own files (records-page.ts, deliveries-page.ts, tokens-page.ts, users-page.ts).
 */

export { PortalPage } from './portal-page';

const at = (id: string) => encodeURIComponent(id);

/** The class of a page at a fixed address: it takes the page and, for another portal than the base URL, its origin. */
function fixedAt(path: string) {
  return class extends PortalPage {
    constructor(page: Page, origin = '') {
      super(page, path, origin);
    }
  };
}

/** / — the overview: tiles and what needs attention. */
export class OverviewPage extends fixedAt('/') {
  tile(id: string): Locator {
    return this.page.getByTestId(`tile-${id}`);
  }
}

/** /login — the sign-in form. */
export class LoginPage extends fixedAt('/login') {
  async signIn(email: string, password: string) {
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }
  get error(): Locator {
    return this.page.locator('#login-error');
  }
}

/** /picks/<id> — one pick, its versions and history. */
export class PickPage extends PortalPage {
  constructor(page: Page, id: string, origin = '') {
    super(page, `/picks/${at(id)}`, origin);
  }
}

/** /licence — the licence and its scope. */
export class LicencePage extends fixedAt('/licence') {}

/** /coverage — coverage reports. */
export class CoveragePage extends fixedAt('/coverage') {}

/** /changes — the change feed. */
export class ChangesPage extends fixedAt('/changes') {}

/** /history — record history: a set at a moment, changes between two. */
export class HistoryPage extends fixedAt('/history') {}

/** /health — feed health. */
export class FeedHealthPage extends fixedAt('/health') {}

/** /alerts — the notification log, digests, alert webhooks. */
export class AlertsPage extends fixedAt('/alerts') {}

/** /exports — my exports; /exports/<id> — one export's manifest. */
export class ExportsPage extends fixedAt('/exports') {}
export class ExportPage extends PortalPage {
  constructor(page: Page, id: string, origin = '') {
    super(page, `/exports/${at(id)}`, origin);
  }
}

/** /deliveries/<id> — a delivery's runs; /deliveries/<id>/runs/<run> — one run. */
export class DeliveryPage extends PortalPage {
  constructor(page: Page, id: string, origin = '') {
    super(page, `/deliveries/${at(id)}`, origin);
  }
}
export class DeliveryRunPage extends PortalPage {
  constructor(page: Page, id: string, runId: string, origin = '') {
    super(page, `/deliveries/${at(id)}/runs/${at(runId)}`, origin);
  }
}

/** /tokens/<id> — one token's page. */
export class TokenPage extends PortalPage {
  constructor(page: Page, id: string, origin = '') {
    super(page, `/tokens/${at(id)}`, origin);
  }
  /** Rolls the token's secret with the overlap chosen by its label, accepting the confirmation; the new secret. */
  async roll(overlap: string): Promise<string> {
    await this.page.getByLabel('The old secret works for').selectOption({ label: overlap });
    this.page.once('dialog', (dialog) => void dialog.accept());
    await this.page.getByRole('button', { name: 'Roll the secret' }).click();
    return (await this.page.getByTestId('rolled-token-value').textContent())!.trim();
  }
  secret(which: 'current' | 'previous'): Locator {
    return this.page.getByTestId('token-secrets').locator(`[data-secret=${which}]`);
  }
  get requests(): Locator {
    return this.page.getByTestId('token-requests');
  }
}

/** /developers — the API reference and the token console. */
export class DevelopersPage extends fixedAt('/developers') {}

/** /developers/events — the event catalogue: each message a webhook receives, and how to check it. */
export class EventCataloguePage extends fixedAt('/developers/events') {
  get eventTypes(): Locator {
    return this.page.getByTestId('event-type');
  }
  example(type: string): Locator {
    return this.page.getByRole('region', { name: `${type}: an example` });
  }
}

/** /admin/audit — the audit trail. */
export class AuditPage extends fixedAt('/admin/audit') {
  get table(): Locator {
    return this.page.getByTestId('audit-table');
  }
}

/** /admin/proofs — signing keys and "check a file". */
export class ProofsPage extends fixedAt('/admin/proofs') {}

/** An address that is no page of the portal: what a wrong link shows. */
export class NoSuchPage extends PortalPage {}
