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
  /** Where tests/support/start-servers.ts says that every shared server answers. */
  readyPort: 4221,
  /** Each portal keeps its state in a data dir of its own (an embedded database), made afresh by its start command. */
  dataDir: (port: number) => `.data/e2e/${port}`,
  /** Where a browser-test portal's output goes (tests/support/prepare-portal.ts makes the folder). */
  logFile: (port: number | string) => `.data/e2e-logs/${port}.log`,
  /** The full-licence key of the e2e sandbox is a canary: it must never reach a browser or a log (leak.spec.ts). */
  sandboxKey: readFileSync('tests/e2e/canary-key', 'utf8').trim(),
  /**
   * The e2e sandbox's frozen clock: noon (UTC) of the day the run started, so that the portal's own defaults (the
   * last 7 days, yesterday to tomorrow), which follow the real clock, meet the sandbox's records. Set once in
   * E2E_NOW by the first process to load this file; the test workers inherit it, so a run crossing midnight keeps one day.
   */
  now: (process.env.E2E_NOW ??= new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000).toISOString()),
} as const;

/** A UTC day (YYYY-MM-DD) counted from the sandbox's frozen day: e2eDay(0) is its day, e2eDay(-19) nineteen days before. */
export const e2eDay = (offset: number): string => new Date(Date.parse(E2E.now) + offset * 86_400_000).toISOString().slice(0, 10);

/** The upstream settings of one e2e portal (kept here, in tests/, so no root file names the key variable). */
export function upstreamEnv(baseUrl: string, key: string): Record<string, string> {
  return { PICKS_API_BASE_URL: baseUrl, PICKS_API_KEY: key };
}
