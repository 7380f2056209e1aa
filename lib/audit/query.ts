import { z } from 'zod';
import { AppError } from '../errors';
import type { AuditQuery } from '../store/audit';

/** The audit trail's filters, from a URL: the one parser for /api/audit (and the admin page). Unknown names or values: 400. */

export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-out',
  'export.picks',
  'export.results',
  'export.changes',
  'user.add',
  'user.role',
  'user.disable',
  'user.enable',
  'user.password',
  'user.remove',
  'settings.change',
  'delivery.add',
  'delivery.change',
  'delivery.remove',
  'delivery.run',
] as const;
export const AUDIT_OUTCOMES = ['complete', 'failed', 'cancelled'] as const;

const day = /^\d{4}-\d{2}-\d{2}$/;
const instant = z
  .string()
  .trim()
  .refine((value) => (day.test(value) || z.iso.datetime({ offset: true }).safeParse(value).success) && !Number.isNaN(Date.parse(value)), {
    message: 'must be a UTC day (2026-11-22) or an ISO 8601 time',
  });

const schema = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  actor: z.string().trim().min(1).max(320).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  format: z.enum(['csv', 'json']).optional(),
});

export type AuditFilters = AuditQuery & { format?: 'csv' | 'json' };

export function parseAuditQuery(params: URLSearchParams): AuditFilters {
  const values: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in values) throw invalid({ [key]: 'is given more than once' });
    values[key] = value;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const details = Object.fromEntries(
      parsed.error.issues.map((issue) =>
        issue.code === 'unrecognized_keys'
          ? [issue.keys.join(', '), 'is not a filter of the audit trail']
          : [String(issue.path[0]), issue.message],
      ),
    );
    throw invalid(details);
  }
  const { from, to, ...rest } = parsed.data;
  // A day in "to" includes that whole day.
  const toInstant = to && day.test(to) ? new Date(Date.parse(to) + 86_400_000).toISOString() : to && new Date(to).toISOString();
  return { ...rest, from: from && new Date(from).toISOString(), to: toInstant || undefined };
}

function invalid(details: Record<string, string>) {
  return new AppError({
    code: 'INVALID_FILTERS',
    message: `Invalid audit filters: ${Object.entries(details)
      .map(([key, problem]) => `${key} ${problem}`)
      .join('; ')}.`,
    details,
  });
}
