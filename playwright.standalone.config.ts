import { defineConfig } from '@playwright/test';
import main, { STANDALONE_SPECS } from './playwright.config';

/**
 * The browser specs that start every server they use (their own sandbox, portals on their own ports,
 * PostgreSQL, SMTP, Prometheus) and touch no shared portal: `npm test` runs them after the main suite,
 * in a second Playwright process with no web servers of its own and its own output folder.
 */
export default defineConfig({
  ...main,
  testIgnore: undefined,
  projects: undefined,
  workers: 1,
  testMatch: STANDALONE_SPECS.map((spec) => `**/${spec}`),
  webServer: undefined,
  outputDir: 'test-results-standalone',
});
