import type { Page } from '@playwright/test';
import { E2E } from './ports';

/** What the key-leak specs (tests/e2e/leak*.spec.ts) look for and how they watch a page. */

const canary = E2E.sandboxKey;
const forms = [canary, Buffer.from(canary).toString('base64').replace(/=+$/, ''), Buffer.from(canary).toString('base64url')];
/** How many forms of the canary key (plain, base64, base64url) a text holds. */
export const hits = (text: string) => forms.filter((form) => text.includes(form)).length;

export interface Seen {
  url: string;
  status: number;
  body: string;
  headers: string;
}

/** Every response's body is read as it comes; `drained` waits for the reads still going (prefetches included). */
export function record(page: Page, seen: Seen[], consoleLines: string[]) {
  const reading = new Set<Promise<void>>();
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('response', (response) => {
    const read = response
      .text()
      .catch(() => '')
      .then((body) => {
        seen.push({ url: response.url(), status: response.status(), body, headers: JSON.stringify(response.headers()) });
      });
    reading.add(read);
    void read.finally(() => reading.delete(read));
  });
  return { drained: () => Promise.all([...reading]) };
}

/**
 * A page is loaded, then given a bounded while for its prefetches to answer (what was asked meanwhile is read
 * whole by `drained`): an unbounded 'networkidle' waited out a whole test on a busy CI machine. Not `settled`:
 * the sign-in page and Next's own 400 page have no portal frame to say they are ready.
 */
export async function visited(page: Page) {
  await page.waitForLoadState('load');
  await page.waitForLoadState('networkidle', { timeout: 8_000 }).catch(() => undefined);
}
