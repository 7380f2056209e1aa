import { readFileSync } from 'node:fs';

/** Where the e2e portals and sandbox listen (chosen away from the defaults so a running portal is left alone). */
export const E2E = {
  port: Number(process.env.E2E_PORT ?? 3200),
  sandboxPort: Number(process.env.E2E_SANDBOX_PORT ?? 4210),
  suspendedPort: 3201,
  badKeyPort: 3202,
  throttledPort: 3203,
  downPort: 3204,
  /** A portal whose upstream is the fault proxy in front of the sandbox. */
  faultyPort: 3205,
  /** The same, kept apart for the long Retry-After test: its process-wide pause must not reach other specs. */
  pausedPort: 3206,
  /** The same again, for the security tests: a gate of its own, untouched by other specs' upstream pauses. */
  securityPort: 3207,
  faultProxyPort: 4220,
  /** Each portal keeps its state in a data dir of its own (an embedded database), made afresh by its start command. */
  dataDir: (port: number) => `.data/e2e/${port}`,
  /** Where a browser-test portal's output goes (tests/e2e/support/prepare-portal.ts makes the folder). */
  logFile: (port: number) => `.data/e2e-logs/${port}.log`,
  /** The full-licence key of the e2e sandbox is a canary: it must never reach a browser or a log (leak.spec.ts). */
  sandboxKey: readFileSync('tests/e2e/canary-key', 'utf8').trim(),
  /** The e2e sandbox's frozen clock: the same records, statuses and pages on every run. */
  now: '2026-11-20T12:00:00.000Z',
} as const;

/** The upstream settings of one e2e portal (kept here, in tests/, so no root file names the key variable). */
export function upstreamEnv(baseUrl: string, key: string): Record<string, string> {
  return { PICKS_API_BASE_URL: baseUrl, PICKS_API_KEY: key };
}
