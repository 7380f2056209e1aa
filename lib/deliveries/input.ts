import { z } from 'zod';
import { AppError } from '../errors';
import { parseFilters } from '../filters';
import { parseChangeQuery } from '../changes/query';
import { checkSchedule } from './schedule';

/**
 * What a delivery is, as editors send it (POST and PATCH /api/deliveries): checked here, whole, before
 * anything is stored. Filters go through the same parsers as pages and exports, after relative dates are
 * resolved; a directory that leaves DELIVERY_ROOT, a host or URL that is not allowed, or a missing secret
 * is a 400 naming the field.
 */

export const DELIVERY_KINDS = ['picks', 'results', 'changes'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** `today`, `today-7d`, `today+1d`, `now`, `now-24h`: resolved at each run, so a schedule never goes stale. */
const RELATIVE = /^(today|now)(?:([+-])(\d{1,4})([dh]))?$/;

export function resolveRelative(value: string, nowMs: number): string {
  const match = RELATIVE.exec(value.trim());
  if (!match) return value;
  const [, base, sign, amount, unit] = match;
  const start = base === 'today' ? Math.floor(nowMs / 86_400_000) * 86_400_000 : nowMs;
  const offset = amount ? Number(amount) * (unit === 'd' ? 86_400_000 : 3_600_000) * (sign === '-' ? -1 : 1) : 0;
  return new Date(start + offset).toISOString();
}

/** The filters of one run: relative dates resolved, then the one parser (a 400 AppError if they do not pass). */
export function runFilters(kind: DeliveryKind, filters: Record<string, string>, nowMs: number): Record<string, string> {
  const resolved = Object.fromEntries(
    Object.entries(filters).map(([key, value]) => [key, key === 'from' || key === 'to' ? resolveRelative(value, nowMs) : value]),
  );
  if (kind === 'changes') {
    parseChangeQuery(new URLSearchParams(resolved), 'download');
    return resolved;
  }
  const parsed = parseFilters(kind, new URLSearchParams(resolved));
  if (!parsed.ok) throw parsed.error;
  return resolved;
}

const text = (max: number) => z.string().trim().min(1).max(max);
const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name or an IP address');

export const destinationSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('directory'),
    folder: z.string().trim().max(200).default(''),
  }),
  z.strictObject({
    type: z.literal('sftp'),
    host,
    port: z.coerce.number().int().min(1).max(65535).default(22),
    username: text(100),
    password: z.string().min(1).max(1000).optional(),
    privateKey: z.string().min(1).max(20_000).optional(),
    path: z.string().trim().max(500).default('.'),
    /** The server's host key fingerprint as `ssh-keygen -lf` prints it: pinned as given instead of on first use. */
    hostKey: z
      .string()
      .trim()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be a fingerprint like SHA256:… (ssh-keygen -lf <host key>)')
      .optional(),
  }),
  z.strictObject({
    type: z.literal('webhook'),
    url: z.url({ protocol: /^https?$/, error: 'must be an https URL' }),
    secret: z.string().min(16, 'must be at least 16 characters').max(500).optional(),
  }),
]);
export type DestinationInput = z.infer<typeof destinationSchema>;

export const deliverySchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'must start with a letter or digit and hold only letters, digits, spaces, . _ -'),
  kind: z.enum(DELIVERY_KINDS),
  format: z.enum(['csv', 'json']),
  filters: z.record(z.string(), z.string().max(200)).default({}),
  schedule: z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      const problem = checkSchedule(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  destination: destinationSchema,
});
export type DeliveryInput = z.infer<typeof deliverySchema>;

export function invalidDelivery(details: Record<string, string>): AppError {
  return new AppError({
    code: 'INVALID_DELIVERY',
    message: `Invalid delivery: ${Object.entries(details)
      .map(([key, problem]) => `${key} ${problem}`)
      .join('; ')}.`,
    details,
  });
}

/** Zod's issues as { field: problem }, with nested paths dotted (destination.url). */
export function issuesOf(error: z.ZodError): Record<string, string> {
  return Object.fromEntries(
    error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? [issue.keys.join(', '), 'is not a field of a delivery']
        : [issue.path.join('.') || 'body', issue.message],
    ),
  );
}
