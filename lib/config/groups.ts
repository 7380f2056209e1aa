import 'server-only';
import { z } from 'zod';
import { parseMeFields } from '../vocabulary/licence';
import { parseAddressList } from '../net/addresses';
import { storeSettingsShape } from './store';
import { commaList, flag, longSecret, optionalFlag, optionalText, parsedBy, positiveInt, wholeNumber } from './fields';

/**
 * The portal's settings, one sub-schema per group. The portal reads them all (lib/config/index.ts); a
 * command-line tool reads only the groups it needs (`npm run audit`: store and audit). docs/configuration.md
 * has one section per group, and a test checks that each section names exactly its group's variables.
 */

const baseUrl = z
  .string({ error: 'is required (the API base address, e.g. https://api.example.com)' })
  .trim()
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
  .refine((value) => !new URL(value).username && !new URL(value).password, 'must not contain credentials')
  .refine((value) => !/\/api\/v1\/?$/.test(new URL(value).pathname), 'must not end with /api/v1 (give the base address only)')
  .refine((value) => !new URL(value).search && !new URL(value).hash, 'must not contain a query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

/** The Picks API: where it is, the partner key, and how the client treats it (lib/picks-api/). */
export const upstreamSettings = {
  PICKS_API_BASE_URL: baseUrl,
  PICKS_API_KEY: z
    .string({ error: 'is required (the partner key, kept on the server only)' })
    .trim()
    .min(1, 'must not be empty')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  PICKS_API_ALLOW_INSECURE: flag,
  PICKS_API_TIMEOUT_MS: positiveInt(10_000, 120_000),
  // How long a page waits for the Picks API in all (its calls, their retries, the gate) before it shows the error.
  PAGE_UPSTREAM_WAIT_MS: positiveInt(10_000, 120_000),
  PICKS_API_MAX_CONCURRENCY: positiveInt(6, 64),
  PICKS_API_MAX_RETRIES: wholeNumber(3, 0, 3),
  // Where /me keeps licence fields, for an upstream whose shape the search does not find (lib/picks-api/licence.ts).
  PICKS_ME_FIELDS: parsedBy(parseMeFields),
  // How long pages may reuse a /me answer (lib/picks-api/portal.ts); 0: every page asks. /licence always asks.
  PICKS_ME_CACHE_SECONDS: wholeNumber(30, 0, 3600),
};

const unsetIfEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema);

/** The HTTP server: its port, what it accepts, whom it believes, and where pages may load logos from. */
export const serverSettings = {
  PORT: wholeNumber(3000, 1, 65535),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  // Set by `npm start` when it started the sandbox itself: the only case in which demo users may sign in.
  PORTAL_SANDBOX: flag,
  // Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); empty: only the socket's address counts.
  TRUSTED_PROXIES: parsedBy((value) => parseAddressList(value), 'has '),
  // Extra origins logos may load from (CSP img-src), beyond https: hosts and the upstream's own origin.
  PORTAL_IMAGE_ORIGINS: commaList(/^https?:\/\/[A-Za-z0-9.\-[\]:]+$/, 'an origin like https://cdn.example.com'),
  // The largest request body the portal reads (lib/http/request-policy.ts); larger ones are refused with 413 unread.
  PORTAL_MAX_BODY_KB: positiveInt(1024, 102_400),
  // On SIGTERM, how long running exports and delivery runs may go on before the process stops (lib/start/shutdown.ts).
  SHUTDOWN_GRACE_SECONDS: wholeNumber(30, 0, 3_600),
  // /metrics for a bearer of this token (24+ characters); unset: /metrics answers 404 on the portal's port.
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.string().min(24, 'must be at least 24 characters (e.g. `openssl rand -base64 24`)').optional()),
  // A separate host:port serving /metrics without a token (an address only the monitoring network reaches).
  METRICS_LISTEN: optionalText.refine(
    (value) => value === undefined || /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(value),
    'must be host:port, such as 127.0.0.1:9464',
  ),
  // Logs (lib/log/): the least level written, JSON lines or readable ones (unset: readable on a terminal), emails in request lines.
  LOG_LEVEL: unsetIfEmpty(
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
  ),
  LOG_FORMAT: unsetIfEmpty(z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional()),
  LOG_USERS: flag,
  /** A line per request answered: unset, on except beside the sandbox (where a person clicking around reads the terminal). */
  LOG_REQUESTS: optionalFlag,
};

/** Sign-in and sessions (lib/auth/): the secret sessions are sealed with, the public URL, lifetimes. */
export const sessionSettings = {
  AUTH_SECRET: longSecret,
  NEXTAUTH_SECRET: longSecret,
  NEXTAUTH_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: "must be the portal's public http(s) URL" }).optional()),
  SESSION_MAX_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(8),
  // How long a session whose state the store cannot confirm is still honoured from this instance's own last answer.
  SESSION_STORE_GRACE_SECONDS: wholeNumber(60, 0, 3600),
};

/** Exports and coverage walks running at once (lib/walk-slots.ts). */
export const exportSettings = {
  MAX_CONCURRENT_EXPORTS: positiveInt(4, 64),
  MAX_EXPORTS_PER_USER: positiveInt(2, 16),
};

/** The audit trail (lib/audit/): how long it keeps entries. */
export const auditSettings = {
  AUDIT_RETENTION_DAYS: wholeNumber(400, 1, 36_500),
  // How often one instance checks the trail's chain, alerting on a failure (0: never).
  AUDIT_VERIFY_HOURS: wholeNumber(24, 0, 8_760),
};

/** The change feed (lib/changes/): the window of event dates it watches, how often it polls (0: never), what it keeps. */
export const changeFeedSettings = {
  CHANGES_DAYS_BACK: wholeNumber(7, 0, 366),
  CHANGES_DAYS_AHEAD: wholeNumber(14, 0, 366),
  CHANGES_POLL_SECONDS: wholeNumber(300, 0, 86_400).refine((value) => value === 0 || value >= 2, 'must be 0 (off) or at least 2 seconds'),
  CHANGES_RETENTION_DAYS: wholeNumber(90, 1, 36_500),
  // How often the whole licensed set is read for the index of the licensed set, beyond the polls' window (0: never).
  INDEX_WALK_HOURS: wholeNumber(24, 0, 8_760),
  // How far back API v1's event stream resumes (never further than the entries kept): older gets a `gap` event.
  EVENTS_RETENTION_DAYS: wholeNumber(7, 1, 36_500),
  // How long record history (lib/history) keeps versions no longer in force, and files' lists of what they delivered.
  HISTORY_RETENTION_DAYS: wholeNumber(90, 1, 36_500),
  // Top-level fields the change feed leaves out of its digest (e.g. logo URLs an upstream signs anew on every answer).
  CHANGES_DIGEST_IGNORE: commaList(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a field name'),
};

/**
 * Scheduled deliveries (lib/deliveries/): where folder deliveries write, the key secrets are sealed with,
 * whether targets may be on private networks, and the limits (lib/deliveries/limits.ts).
 */
export const deliverySettings = {
  DELIVERY_ROOT: optionalText,
  DELIVERY_SECRET_KEY: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)').optional()),
  DELIVERY_ALLOW_PRIVATE_TARGETS: flag,
  DELIVERY_MAX_PER_USER: positiveInt(20, 1000),
  DELIVERY_MIN_INTERVAL_MINUTES: positiveInt(15, 1440),
  DELIVERY_SPOOL_DIR: optionalText,
  DELIVERY_SPOOL_MIN_FREE_MB: wholeNumber(1024, 0, 1_000_000_000),
};

/**
 * Alerts (lib/alerts/): the SMTP server they are mailed through (unset: they are kept in the notification
 * log, unsent), the sender, and how long a state must hold before it alerts.
 */
export const alertSettings = {
  SMTP_URL: optionalText.refine(
    (value) => value === undefined || /^smtps?:\/\/[^/\s]+/.test(value),
    'must be smtp://host:port or smtps://user:password@host:465',
  ),
  ALERT_EMAIL_FROM: z.string().trim().email('must be an email address').default('picks-portal@localhost'),
  ALERT_HOLD_SECONDS: wholeNumber(300, 0, 86_400),
  // Every how often each instance sends what is due and watches that some instance polls.
  ALERT_CHECK_SECONDS: wholeNumber(15, 1, 600),
  // The hour (UTC) of the daily digest for those who chose it.
  ALERT_DIGEST_HOUR: wholeNumber(7, 0, 23),
};

/**
 * Proofs (lib/proof/): the Ed25519 key manifests and checkpoints are signed with (a file, never the database;
 * required with DATABASE_URL, made in PORTAL_DATA_DIR otherwise), and how often the audit trail is sealed.
 */
export const proofSettings = {
  PORTAL_SIGNING_KEY_FILE: optionalText,
  AUDIT_CHECKPOINT_EVERY: wholeNumber(100, 1, 1_000_000),
  AUDIT_CHECKPOINT_MINUTES: wholeNumber(5, 1, 1_440),
  AUDIT_CHECKPOINT_FILE: optionalText,
  // The largest file an admin may upload to "check a file" (/admin/proofs); the offline verifier has no limit.
  PROOF_CHECK_MAX_MB: positiveInt(100, 2_048),
};

/** Every group, by the name docs/configuration.md gives its section. OIDC has its own parser (lib/auth/oidc.ts). */
export const SETTING_GROUPS = {
  upstream: upstreamSettings,
  server: serverSettings,
  sessions: sessionSettings,
  store: storeSettingsShape,
  exports: exportSettings,
  audit: auditSettings,
  'change feed': changeFeedSettings,
  deliveries: deliverySettings,
  alerts: alertSettings,
  proofs: proofSettings,
} as const;
