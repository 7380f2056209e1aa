import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createPortalLogger } from './create.mjs';
import { server } from '../process-state';

/**
 * The process's logger (docs/operations.md#logs). Under the portal's server it is the one
 * scripts/portal-server.mjs made before Next started (stdout, JSON lines); anywhere else (commands, tests)
 * one is made on first use, writing to stderr so that a command's standard output stays its product.
 * Under vitest, tests/support/log-setup.ts puts one in place that writes through console (held back there).
 */

export function logger(): Logger {
  server.log ??= createPortalLogger({ fd: 2 });
  return server.log;
}

/** A component's logger: its lines carry `component` and any fields given (a poll's or a run's id). */
export function log(component: string, fields: Record<string, unknown> = {}): Logger {
  return logger().child({ component, ...fields });
}

/**
 * For the loops that take a `(line) => void` (tests pass their own): a `[component] message` line logged
 * with the component as a field, at error level when the line says something failed.
 */
export type LineLog = (line: string, fields?: Record<string, unknown>) => void;

export function lineLog(component: string, fields: Record<string, unknown> = {}): LineLog {
  return (line, extra) => {
    const text = line.replace(/^\[[\w-]+\]\s*/, '');
    const target = log(component, { ...fields, ...extra });
    if (/\b(failed|could not|NOT RECORDED)\b/.test(text)) target.error(text);
    else target.info(text);
  };
}

/** A short id for background work (a poll, a pruning pass), so its lines can be found together. */
export function workId(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}
