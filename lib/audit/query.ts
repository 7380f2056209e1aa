import { EXPORT_ACTIONS } from '../vocabulary/audit';
import { z } from 'zod';
import { DAY as day, instant, parseStrictQuery } from '../strict-query';
import type { AuditQuery } from '../store/audit';

/** The audit trail's filters, from a URL: the one parser for /api/audit (and the admin page). Unknown names or values: 400. */

export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-out',
  ...EXPORT_ACTIONS,
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
  'delivery.test',
  'feed.cadence',
  'alerts.webhook.add',
  'alerts.webhook.change',
  'alerts.webhook.remove',
  'token.create',
  'token.change',
  'token.revoke',
  'token.roll',
  'token.reassign',
  'token.suspend',
  'token.resume',
  'token.ceilings',
  'token.webhook.add',
  'token.webhook.change',
  'token.webhook.remove',
  'token.webhook.resend',
  'token.webhook.test',
  'token.webhook.confirm',
  'token.webhook.await',
  'proof.compromised',
  'backup.restore',
  'index.rebuild',
  'mcp.call',
] as const;
export const AUDIT_OUTCOMES = ['complete', 'failed', 'cancelled'] as const;

const schema = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  actor: z.string().trim().min(1).max(320).optional(),
  action: z.enum(AUDIT_ACTIONS, { error: `must be one of ${AUDIT_ACTIONS.join(', ')}` }).optional(),
  outcome: z.enum(AUDIT_OUTCOMES, { error: `must be one of ${AUDIT_OUTCOMES.join(', ')}` }).optional(),
  format: z.enum(['csv', 'json'], { error: 'must be csv or json' }).optional(),
});

export type AuditFilters = AuditQuery & { format?: 'csv' | 'json' };

export function parseAuditQuery(params: URLSearchParams): AuditFilters {
  const parsed = parseStrictQuery(schema, params, { title: 'Invalid audit filters', of: 'the audit trail' });
  const { from, to, ...rest } = parsed;
  // A day in "to" includes that whole day.
  const toInstant = to && day.test(to) ? new Date(Date.parse(to) + 86_400_000).toISOString() : to && new Date(to).toISOString();
  return { ...rest, from: from && new Date(from).toISOString(), to: toInstant || undefined };
}
