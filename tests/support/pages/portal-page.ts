import { expect, type Locator, type Page, type Response } from '@playwright/test';

/**
 * A page of the portal, as the browser specs see it: where it is, how to open it, and what every page has (its
 * title, its notices). Each page the suites visit has a class of its own below (tests/support/pages/index.ts);
 * a spec opens pages through them, never by `page.goto` (tests/unit/architecture.test.ts checks it).
 */
export class PortalPage {
  constructor(
    readonly page: Page,
    /** The page's path, e.g. `/picks` or `/picks/<id>` (encoded by the class that knows its ids). */
    readonly path: string,
    /** Another portal than the spec's base URL, e.g. `http://127.0.0.1:3216`; '' for the base URL. */
    readonly origin = '',
  ) {}

  /** The page's address with a query (a string without its `?`, or name → value). */
  url(query: string | Record<string, string> = ''): string {
    const q = typeof query === 'string' ? query : new URLSearchParams(query).toString();
    return `${this.origin}${this.path}${q ? `?${q}` : ''}`;
  }

  /** Goes to the page and answers the server's response: for a redirect, an error page or a status a spec checks. */
  visit(query: string | Record<string, string> = '', options?: Parameters<Page['goto']>[1]): Promise<Response | null> {
    return this.page.goto(this.url(query), options);
  }

  /** Goes to the page and waits for its title (every page has one h1: PageTitle). */
  async open(query: string | Record<string, string> = ''): Promise<Response | null> {
    const response = await this.visit(query);
    await expect(this.title).toBeVisible();
    return response;
  }

  get title(): Locator {
    return this.page.getByRole('heading', { level: 1 });
  }

  /** A notice, a panel or a value the page marks with data-testid. */
  part(testId: string): Locator {
    return this.page.getByTestId(testId);
  }

  /** The error panel a page shows for a failure (components/error-panel.tsx), by its code when given. */
  errorPanel(code?: string): Locator {
    return this.page.locator(code ? `[data-error-code="${code}"]` : '[data-error-code]');
  }
}
