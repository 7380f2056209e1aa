import { defineConfig } from '@playwright/test';
import main, { STANDALONE_SPECS } from './playwright.config';

/**
 * The browser specs that start every server they use (their own sandbox, portals on their own ports,
 * PostgreSQL, SMTP, Prometheus) and touch no shared portal: `npm test` runs them after the main suite,
 * in a second Playwright process with no web servers of its own and its own output folder. Three at a time:
 * most of their time is waiting (a portal starting, a poll period, an alert's repeat), the ports of each spec
 * are its own (3222–3240, sandboxes 4232–4240), and with three the run already ends with alerting.spec's serial
 * chain (a fourth gains nothing).
 */
export default defineConfig({
  ...main,
  testIgnore: undefined,
  projects: undefined,
  workers: 3,
  testMatch: STANDALONE_SPECS.map((spec) => `**/${spec}`),
  webServer: undefined,
  outputDir: 'test-results-standalone',
});
