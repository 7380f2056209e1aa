import 'server-only';
import { z } from 'zod';
import { OIDC_VARIABLES, parseOidcConfig, type OidcConfig } from './auth/oidc';
import { parseMeFields } from './picks-api/licence';
import { isLoopbackHost, parseAddressList } from './net/addresses';
import { parseStoreSettings, storeSettingsShape, type StoreSettings } from './store/settings';

/**
 * The portal's configuration, validated once. This is the only module that reads process.env for the
 * portal (and so the only one that reads the partner key). A wrong value fails at start, naming the variable.
 */

const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().positive().max(max).default(fallback);

/** Read by the portal and by `npm run audit` alike (auditRetentionDays). */
const auditRetention = z.coerce.number().int().min(1).max(36_500).default(400);

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const baseUrl = z
  .string({ error: 'is required (the API base address, e.g. https://api.example.com)' })
  .trim()
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
  .refine((value) => !new URL(value).username && !new URL(value).password, 'must not contain credentials')
  .refine((value) => !/\/api\/v1\/?$/.test(new URL(value).pathname), 'must not end with /api/v1 (give the base address only)')
  .refine((value) => !new URL(value).search && !new URL(value).hash, 'must not contain a query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

// next-auth signs and encrypts sessions with it: a short secret can be guessed offline from one cookie.
const secret = optionalText.refine(
  (value) => value === undefined || Buffer.byteLength(value) >= 32,
  'must be at least 32 bytes (e.g. `openssl rand -base64 32`)',
);

/** A text variable read by a parser that throws what is wrong with it; the message follows the variable's name. */
const parsedBy = <T>(parse: (value: string) => T, prefix = '') =>
  z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `${prefix}${(error as Error).message}` });
        return z.NEVER;
      }
    });

const flag = z
  .enum(['', '0', '1', 'true', 'false'], { error: 'must be 1 or 0' })
  .optional()
  .transform((value) => value === '1' || value === 'true');

const configSchema = z.object({
  PICKS_API_BASE_URL: baseUrl,
  PICKS_API_KEY: z
    .string({ error: 'is required (the partner key, kept on the server only)' })
    .trim()
    .min(1, 'must not be empty')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  PICKS_API_TIMEOUT_MS: positiveInt(10_000, 120_000),
  PICKS_API_MAX_CONCURRENCY: positiveInt(6, 64),
  PICKS_API_MAX_RETRIES: z.coerce.number().int().min(0).max(3).default(3),
  ...storeSettingsShape,
  // Extra origins logos may load from (CSP img-src), beyond https: hosts and the upstream's own origin.
  PORTAL_IMAGE_ORIGINS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const origins = value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      for (const origin of origins) {
        if (!/^https?:\/\/[A-Za-z0-9.\-\[\]:]+$/.test(origin))
          ctx.addIssue({ code: 'custom', message: `has "${origin}", which is not an origin like https://cdn.example.com` });
      }
      return origins;
    }),
  AUTH_SECRET: secret,
  NEXTAUTH_SECRET: secret,
  NEXTAUTH_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: "must be the portal's public http(s) URL" }).optional()),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  // Set by `npm start` when it started the sandbox itself: the only case in which demo users may sign in.
  PORTAL_SANDBOX: flag,
  PICKS_API_ALLOW_INSECURE: flag,
  SESSION_MAX_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(8),
  // Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); empty: only the socket's address counts.
  TRUSTED_PROXIES: parsedBy((value) => parseAddressList(value), 'has '),
  // Where /me keeps licence fields, for an upstream whose shape the search does not find (lib/picks-api/licence.ts).
  PICKS_ME_FIELDS: parsedBy(parseMeFields),
  // How long pages may reuse a /me answer (lib/picks-api/portal.ts); 0: every page asks. /licence always asks.
  PICKS_ME_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  MAX_CONCURRENT_EXPORTS: positiveInt(4, 64),
  MAX_EXPORTS_PER_USER: positiveInt(2, 16),
  AUDIT_RETENTION_DAYS: auditRetention,
  // The change feed (lib/changes): the window of event dates it watches, how often it polls (0: never), how long it keeps entries.
  CHANGES_DAYS_BACK: z.coerce.number().int().min(0).max(366).default(7),
  CHANGES_DAYS_AHEAD: z.coerce.number().int().min(0).max(366).default(14),
  CHANGES_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(300)
    .refine((value) => value === 0 || value >= 2, 'must be 0 (off) or at least 2 seconds'),
  CHANGES_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  // Top-level fields the change feed leaves out of its digest (e.g. logo URLs an upstream signs anew on every answer).
  CHANGES_DIGEST_IGNORE: parsedBy((value) => {
    const names = value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const bad = names.find((name) => !/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name));
    if (bad) throw new Error(`has "${bad}", which is not a field name`);
    return names;
  }),
  // Scheduled deliveries (lib/deliveries): where directory deliveries write, the key their secrets are sealed with,
  // and whether SFTP and webhook targets may be on loopback or private networks (off: no reaching inside from here).
  DELIVERY_ROOT: optionalText,
  DELIVERY_SECRET_KEY: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)').optional()),
  DELIVERY_ALLOW_PRIVATE_TARGETS: flag,
  // Limits on deliveries (lib/deliveries/limits.ts): how many one person may own, how often a schedule may run,
  // where runs spool their file, and the free space a run needs there before it starts.
  DELIVERY_MAX_PER_USER: positiveInt(20, 1000),
  DELIVERY_MIN_INTERVAL_MINUTES: positiveInt(15, 1440),
  DELIVERY_SPOOL_DIR: optionalText,
  DELIVERY_SPOOL_MIN_FREE_MB: z.coerce.number().int().min(0).max(1_000_000_000).default(1024),
  // The largest request body the portal reads (lib/request-policy.ts); larger ones are refused with 413 unread.
  PORTAL_MAX_BODY_KB: positiveInt(1024, 102_400),
  // How long a session whose state the store cannot confirm is still honoured from this instance's own last answer.
  SESSION_STORE_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
});

export type PortalConfig = z.infer<typeof configSchema> & { oidc: OidcConfig | null };

/** Every environment variable the configuration reads (docs/configuration.md and .env.example name each: a test checks). */
export const CONFIG_VARIABLES: readonly string[] = [...Object.keys(configSchema.shape), ...OIDC_VARIABLES];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid portal configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseConfig(env: Record<string, string | undefined>): PortalConfig {
  const result = configSchema.safeParse(env);
  const problems = result.success ? [] : result.error.issues.map((issue) => `${String(issue.path[0] ?? 'configuration')} ${issue.message}`);
  let oidc: OidcConfig | null = null;
  try {
    oidc = parseOidcConfig(env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (result.success) problems.push(...crossChecks(result.data));
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return { ...result.data, oidc };
}

/** Rules that involve more than one variable. */
function crossChecks(config: z.infer<typeof configSchema>): string[] {
  const problems: string[] = [];
  const upstream = new URL(config.PICKS_API_BASE_URL);
  if (upstream.protocol === 'http:' && !isLoopbackHost(upstream.hostname) && !config.PICKS_API_ALLOW_INSECURE) {
    problems.push(
      'PICKS_API_BASE_URL must use https unless the upstream is on this machine (loopback): plain http would send the partner key in clear text. Set PICKS_API_ALLOW_INSECURE=1 to accept that risk.',
    );
  }
  if (config.NODE_ENV === 'production' && !config.PORTAL_SANDBOX) {
    if (!config.NEXTAUTH_URL)
      problems.push(
        "NEXTAUTH_URL is required in production: the portal's public URL (e.g. https://portal.example.com), used for sign-in redirects and cookies.",
      );
    if (!config.AUTH_SECRET && !config.NEXTAUTH_SECRET)
      problems.push('AUTH_SECRET is required in production (or NEXTAUTH_SECRET): a long random string, e.g. `openssl rand -base64 32`.');
  }
  return problems;
}

let cached: PortalConfig | undefined;

/** The validated configuration of this process; throws ConfigError on the first call if it is wrong. */
export function getConfig(): PortalConfig {
  cached ??= parseConfig(process.env);
  return cached;
}

/** The portal's public origin (NEXTAUTH_URL; npm start sets it): state-changing requests must come from it. */
export function portalOrigin(config: Pick<PortalConfig, 'NEXTAUTH_URL' | 'PORT'>): string {
  return new URL(config.NEXTAUTH_URL ?? `http://localhost:${config.PORT}`).origin;
}

/** Where the state lives: only these variables, so the command-line tools need no upstream settings. */
export function storeSettings(): StoreSettings {
  return parseStoreSettings(process.env);
}

/** How long the audit trail keeps entries (days); older ones are pruned hourly with the chain kept verifiable. */
export function auditRetentionDays(): number {
  const parsed = auditRetention.safeParse(process.env.AUDIT_RETENTION_DAYS || undefined);
  if (!parsed.success) throw new ConfigError(['AUDIT_RETENTION_DAYS must be a whole number of days (1–36500)']);
  return parsed.data;
}
