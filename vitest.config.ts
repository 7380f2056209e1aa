import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Fault tests provoke the portal's own log lines on purpose ("[deliveries] … failed"): they are counted and
 * summed up once at the end instead of printed between the results, where they read like failures.
 * VITEST_LOGS=1 prints them all.
 */
const held = new Map<string, number>();
const quietLogs = {
  onConsoleLog(log: string): false | void {
    if (process.env.VITEST_LOGS) return;
    const source =
      /^\[([\w-]+)\]/.exec(log)?.[1] ??
      /^\{"level".*?"component":"([\w-]+)"/.exec(log)?.[1] ??
      (log.startsWith('{"level"') ? 'log' : undefined);
    if (!source) return;
    held.set(source, (held.get(source) ?? 0) + 1);
    return false;
  },
  summary: {
    onTestRunEnd() {
      if (held.size === 0) return;
      const counts = [...held].map(([source, n]) => `${n} [${source}]`).join(', ');
      console.log(`\n[test] the portal's own log lines, provoked by fault tests, were held back: ${counts}. VITEST_LOGS=1 prints them.`);
    },
  },
};

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // server-only throws outside React's server build; tests run the same modules in plain Node.
      'server-only': path.resolve(import.meta.dirname, 'tests/support/server-only-stub.ts'),
    },
  },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/contract/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['tests/support/pg-global-setup.ts'],
    setupFiles: ['tests/support/log-setup.ts'],
    // global.gc, so memory tests measure what is alive rather than garbage not yet collected.
    execArgv: ['--expose-gc'],
    onConsoleLog: quietLogs.onConsoleLog,
    reporters: ['default', quietLogs.summary],
    // One worker more than the cores: contract tests spend much of their time waiting on servers (vitest's default,
    // one fewer than the cores, ran them one at a time on two cores: twice the wall time).
    maxWorkers: availableParallelism() + 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
