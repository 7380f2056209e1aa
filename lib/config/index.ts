import 'server-only';
import { z } from 'zod';
import { OIDC_VARIABLES, parseOidcConfig, type OidcConfig } from './oidc';
import { isLoopbackHost, type PrivateTargets } from '../net/addresses';
import { parseStoreSettings, storeSettingsShape, type StoreSettings } from './store';
import { embeddedSecretKey, type SecretKeySource } from './secret-key';
import {
  alertSettings,
  auditSettings,
  changeFeedSettings,
  deliverySettings,
  exportSettings,
  proofSettings,
  serverSettings,
  sessionSettings,
  upstreamSettings,
} from './groups';

/**
 * The portal's configuration, validated once: every group of lib/config/groups.ts, and OIDC. This is the
 * only module that reads process.env for the portal (and so the only one that reads the partner key). A
 * wrong value fails at start, naming the variable; every wrong variable is named at once.
 */

const configSchema = z.object({
  ...upstreamSettings,
  ...serverSettings,
  ...sessionSettings,
  ...storeSettingsShape,
  ...exportSettings,
  ...auditSettings,
  ...changeFeedSettings,
  ...deliverySettings,
  ...alertSettings,
  ...proofSettings,
});

export type PortalConfig = Omit<z.infer<typeof configSchema>, 'DELIVERY_ALLOW_PRIVATE_TARGETS' | 'LOG_REQUESTS'> & {
  /** LOG_REQUESTS, or on unless the upstream is the sandbox `npm start` started. */
  LOG_REQUESTS: boolean;
  /** DELIVERY_ALLOW_PRIVATE_TARGETS, or loopback alone beside the sandbox when it is not given. */
  DELIVERY_ALLOW_PRIVATE_TARGETS: PrivateTargets;
  oidc: OidcConfig | null;
  secretKey: SecretKeySource;
};

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
  const data = result.data;
  // No DELIVERY_SECRET_KEY on the embedded database: the data directory's own key, made on first start.
  let secretKey: SecretKeySource = { source: data.DELIVERY_SECRET_KEY ? 'variable' : 'none', file: null, made: false };
  if (!data.DELIVERY_SECRET_KEY && !data.DATABASE_URL) {
    try {
      const own = embeddedSecretKey(data.PORTAL_DATA_DIR);
      data.DELIVERY_SECRET_KEY = own.key;
      secretKey = { source: 'file', file: own.file, made: own.made };
    } catch (error) {
      throw new ConfigError([`DELIVERY_SECRET_KEY is not set and ${(error as Error).message}`]);
    }
  }
  // Beside the sandbox (itself on loopback) a receiver on this machine works as shipped; nothing further in.
  const privateTargets: PrivateTargets = data.DELIVERY_ALLOW_PRIVATE_TARGETS
    ? true
    : data.PORTAL_SANDBOX && !env.DELIVERY_ALLOW_PRIVATE_TARGETS
      ? 'loopback'
      : false;
  const logRequests = data.LOG_REQUESTS ?? !data.PORTAL_SANDBOX;
  return { ...data, DELIVERY_ALLOW_PRIVATE_TARGETS: privateTargets, LOG_REQUESTS: logRequests, oidc, secretKey };
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
  const parsed = z.object(auditSettings).safeParse({ AUDIT_RETENTION_DAYS: process.env.AUDIT_RETENTION_DAYS || undefined });
  if (!parsed.success) throw new ConfigError(['AUDIT_RETENTION_DAYS must be a whole number of days (1–36500)']);
  return parsed.data.AUDIT_RETENTION_DAYS;
}
