import { expect, type Locator, type Page } from '@playwright/test';
import { PortalPage } from './portal-page';

/** The records' table of the page a spec is on (/picks, /results, the search): for a page not opened through RecordsPage. */
export const recordsTable = (page: Page): Locator => page.getByTestId('records-table');

/** The /picks and /results pages: filter form, table, pager. */
export class RecordsPage extends PortalPage {
  readonly table: Locator;
  readonly rows: Locator;
  readonly form: Locator;

  constructor(page: Page, path: '/picks' | '/results', origin = '') {
    super(page, path, origin);
    this.table = recordsTable(page);
    this.rows = this.table.locator('tbody tr');
    this.form = page.getByRole('search');
  }

  async filter(values: Partial<Record<'Sport' | 'League' | 'Status' | 'Result' | 'Page size', string>> & { from?: string; to?: string }) {
    for (const [label, value] of Object.entries(values)) {
      if (label === 'from' || label === 'to') continue;
      await this.form.getByLabel(label, { exact: true }).selectOption(value);
    }
    if (values.from !== undefined) await this.form.getByLabel('From (UTC day)').fill(values.from);
    if (values.to !== undefined) await this.form.getByLabel('To (UTC day)').fill(values.to);
    // The filters apply as they change; Enter in a field applies them at once. Done when the address holds them all.
    const names: Record<string, string> = { Sport: 'sport', League: 'league', Status: 'status', Result: 'result', 'Page size': 'limit' };
    const wanted = Object.entries(values).map(([label, value]) => [names[label] ?? label, value ?? ''] as const);
    await this.form.getByLabel('From (UTC day)').press('Enter');
    await this.page.waitForURL((url) =>
      wanted.every(([name, value]) => (value === '' ? !url.searchParams.has(name) : url.searchParams.get(name) === value)),
    );
    await this.page.waitForLoadState('networkidle');
    await expect(this.page.getByText('Loading records…')).toHaveCount(0);
  }

  ids(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pick-id') ?? ''));
  }

  async columnTexts(header: string): Promise<string[]> {
    const headers = await this.table.locator('thead th').allInnerTexts();
    const index = headers.findIndex((h) => h.replace(/[▲▼↕]/g, '').trim() === header);
    expect(index, `column ${header}`).toBeGreaterThanOrEqual(0);
    return this.rows.locator(`td:nth-child(${index + 1})`).allInnerTexts();
  }
}

/** The sides of events shown with fewer than 18 of their characters (or fewer than all of a shorter name): none, at 1440 px. */
export function eventsCutShort(page: Page): Promise<{ text: string; shown: number }[]> {
  return page.locator('[data-records] .teams b').evaluateAll((names) =>
    names
      .map((name) => {
        const text = name.textContent ?? '';
        const shown = name.scrollWidth <= name.clientWidth ? text.length : Math.floor((text.length * name.clientWidth) / name.scrollWidth);
        return { text, shown };
      })
      .filter(({ text, shown }) => shown < Math.min(18, text.length)),
  );
}
