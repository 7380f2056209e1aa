import { RECORD_FORMATS } from '../vocabulary/formats';
import { z } from 'zod';
import { invalidFields, type AppError, type SettingProblem } from '../errors';
import { fieldsThatPass } from '../net/json-body';
import { parseFilters } from '../picks-api/filters';
import { shown } from '../strict-query';
import { parseChangeQuery } from '../changes/query';
import { checkSchedule } from './schedule';

/**
 * What a delivery is, as editors send it (POST and PATCH /api/deliveries): checked here, whole, before
 * anything is stored. Filters go through the same parsers as pages and exports, after relative dates are
 * resolved; a directory that leaves DELIVERY_ROOT, a host or URL that is not allowed, or a missing secret
 * is a 400 naming the field.
 */

import { DELIVERY_KINDS } from '../vocabulary/delivery-run';

export { DELIVERY_KINDS };
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

/** Plain words for a missing or mistyped value, whatever the field. */
const required = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});
const text = (max: number) => z.string(required('text')).trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
const host = z
  .string(required('a host name'))
  .trim()
  .min(1, 'is required')
  .max(253, 'must be at most 253 characters')
  .regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name or an IP address');
const port = z.coerce
  .number({ error: 'must be a port number (1–65535)' })
  .int('must be a port number (1–65535)')
  .min(1, 'must be a port number (1–65535)')
  .max(65535, 'must be a port number (1–65535)');

/** A PostgreSQL name nobody has to quote: lower-case letters, digits and _, not starting with a digit. */
const identifier = z
  .string(required('a name'))
  .trim()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case name: letters, digits and _, not starting with a digit (at most 63)');

export const destinationSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('directory'),
      folder: z.string(required('text')).trim().max(200, 'must be at most 200 characters').default(''),
    }),
    z.strictObject({
      type: z.literal('sftp'),
      host,
      port: port.default(22),
      username: text(100),
      password: z.string(required('text')).min(1, 'is required').max(1000, 'is too long').optional(),
      privateKey: z.string(required('text')).min(1, 'is required').max(20_000, 'is too long').optional(),
      path: z.string(required('text')).trim().max(500, 'must be at most 500 characters').default('.'),
      /** The server's host key fingerprint as `ssh-keygen -lf` prints it: pinned as given instead of on first use. */
      hostKey: z
        .string(required('text'))
        .trim()
        .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be a fingerprint like SHA256:… (ssh-keygen -lf <host key>)')
        .optional(),
    }),
    z.strictObject({
      type: z.literal('s3'),
      bucket: z
        .string(required('text'))
        .trim()
        .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3–63 lower-case letters, digits, dots and dashes'),
      region: z
        .string(required('text'))
        .trim()
        .regex(/^[a-z0-9-]{2,32}$/, 'must be a region such as eu-west-1 (auto for Cloudflare R2)')
        .default('us-east-1'),
      /** An S3-compatible service (MinIO, R2, …); none for AWS. */
      endpoint: z.url({ protocol: /^https?$/, error: 'must be an https URL' }).optional(),
      prefix: z
        .string(required('text'))
        .trim()
        .max(500, 'must be at most 500 characters')
        .regex(/^[^\u0000-\u001f\\]*$/, 'must not hold control characters or backslashes')
        .refine((value) => !value.split('/').includes('..'), 'must not hold ".."')
        .default(''),
      accessKeyId: text(128),
      secretAccessKey: z.string(required('text')).min(1, 'is required').max(256, 'is too long').optional(),
    }),
    z.strictObject({
      type: z.literal('postgres'),
      /** postgres://user:password@host:port/database?sslmode=verify-full|require|disable: read by ./pg-connection.ts. */
      connection: z.string(required('a connection string')).trim().min(1, 'is required').max(2000, 'is too long'),
      schema: identifier.default('public'),
      table: identifier.max(57, 'must be at most 57 characters (its sync log is <table>_syncs)'),
    }),
    z.strictObject({
      type: z.literal('webhook'),
      url: z.url({ protocol: /^https?$/, error: 'must be an https URL' }),
      secret: z.string(required('text')).min(16, 'must be at least 16 characters').max(500, 'is too long').optional(),
    }),
  ],
  { error: 'must be directory, sftp, webhook, s3 or postgres' },
);
export type DestinationInput = z.infer<typeof destinationSchema>;

export const deliverySchema = z.strictObject({
  name: text(80).regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'must start with a letter or digit and hold only letters, digits, spaces, . _ -'),
  kind: z.enum(DELIVERY_KINDS, { error: 'must be picks, results or changes' }),
  format: z.enum(RECORD_FORMATS, { error: 'must be csv, json, jsonl (JSON Lines) or parquet' }),
  filters: z
    .record(z.string(), z.string({ error: 'must be text' }).max(200, 'must be at most 200 characters'), {
      error: 'must be an object of filter names and values',
    })
    .default({}),
  schedule: z
    .string(required('a cron schedule (five fields, e.g. 0 6 * * *)'))
    .trim()
    .superRefine((value, ctx) => {
      const problem = checkSchedule(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  destination: destinationSchema,
  /** The recipient's armoured OpenPGP public key (files placed encrypted, as <file>.pgp); null removes it. */
  encryptTo: z
    .string({ error: 'must be an armoured OpenPGP public key' })
    .trim()
    .max(100_000, 'is too long for a public key')
    .nullable()
    .optional(),
  /** Send corrections (only the records changed since) to the same destination after each poll that changes what it delivered. */
  corrections: z.boolean({ error: 'must be true or false' }).optional(),
});
export type DeliveryInput = z.infer<typeof deliverySchema>;

/**
 * Each field of a delivery parsed on its own, so that every wrong field is named at once and the fields
 * that are right can still be checked further (filters against the licence, the target's address).
 */
export function parseDeliveryFields(input: unknown): {
  value: Partial<DeliveryInput>;
  problems: Record<string, string>;
  /** When the destination did not pass whole: its fields that did. */
  destination?: Partial<DestinationInput>;
} {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { value: {}, problems: { body: 'is not a JSON object' } };
  const body = input as Record<string, unknown>;
  const problems: Record<string, string> = {};
  const unknown = Object.keys(body).filter((key) => !(key in deliverySchema.shape));
  if (unknown.length > 0)
    problems[unknown.join(', ')] = `is not a field of a delivery (its fields: ${Object.keys(deliverySchema.shape).join(', ')})`;
  const value: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(deliverySchema.shape)) {
    const parsed = (schema as z.ZodType).safeParse(body[key]);
    if (parsed.success) value[key] = parsed.data;
    else Object.assign(problems, prefixed(key, issuesOf(parsed.error)));
  }
  const destination = value.destination ? undefined : destinationFieldsThatPass(body.destination);
  return { value: value as Partial<DeliveryInput>, problems, ...(destination ? { destination } : {}) };
}

/**
 * A destination that did not pass as a whole, field by field: the fields that pass on their own, so that what
 * can be checked further (its host, URL or connection, its secret) is checked in the same answer.
 */
function destinationFieldsThatPass(raw: unknown): Partial<DestinationInput> | null {
  const type = (raw as { type?: unknown } | null)?.type;
  const option = destinationSchema.options.find((o) => o.shape.type.value === type);
  return option ? (fieldsThatPass(option.shape, raw) as Partial<DestinationInput>) : null;
}

const prefixed = (key: string, issues: Record<string, string>) =>
  Object.fromEntries(Object.entries(issues).map(([path, problem]) => [path === 'body' ? key : `${key}.${path}`, problem]));

export const invalidDelivery = (details: Record<string, string>, settings: SettingProblem[] = []): AppError =>
  invalidFields('delivery', details, 'INVALID_DELIVERY', settings);

/** Zod's issues as { field: problem }, with nested paths dotted (destination.url); a field's first problem is the one said. */
export function issuesOf(error: z.ZodError): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const issue of error.issues) {
    const [field, problem] =
      issue.code === 'unrecognized_keys'
        ? [[...issue.path, issue.keys.map(shown).join(', ')].join('.'), 'is not a known field']
        : [issue.path.join('.') || 'body', issue.message];
    problems[field] ??= problem;
  }
  return problems;
}
