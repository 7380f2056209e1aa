import { z } from 'zod';
import { isLoopbackHost } from '../net/addresses';
import { isRole, type Role } from '../vocabulary/roles';
import type { SsoRefusal } from '../vocabulary/sign-in-errors';

/**
 * Optional single sign-on. Set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to add an OpenID
 * Connect provider beside credentials. Roles come only from OIDC_ROLE_MAP ("group=role,group=role")
 * applied to a claim (OIDC_ROLE_CLAIM, default "roles": a string or a list): a group that merely shares
 * a role's name grants nothing. OIDC_DEFAULT_ROLE gives everyone else a role; unset, they are refused.
 * An email the IdP does not mark verified is refused (OIDC_REQUIRE_EMAIL_VERIFIED=false accepts one whose IdP
 * never says); OIDC_ALLOWED_DOMAINS limits the email domains. An account is bound to the provider's `sub`.
 */

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  roleClaim: string;
  roleMap: Record<string, Role>;
  defaultRole: Role | null;
  allowedDomains: string[];
  name: string;
  /** Refuse a profile that does not say its email is verified (default); false: refuse only one that says it is not. */
  requireEmailVerified: boolean;
}

const RANK: Role[] = ['viewer', 'manager', 'editor', 'admin'];
const REQUIRED = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;
/** Every variable parseOidcConfig reads. */
export const OIDC_VARIABLES = [
  ...REQUIRED,
  'OIDC_ROLE_CLAIM',
  'OIDC_ROLE_MAP',
  'OIDC_DEFAULT_ROLE',
  'OIDC_ALLOWED_DOMAINS',
  'OIDC_NAME',
  'OIDC_REQUIRE_EMAIL_VERIFIED',
] as const;

export function parseOidcConfig(env: Record<string, string | undefined>): OidcConfig | null {
  const set = REQUIRED.filter((key) => env[key]?.trim());
  if (set.length === 0) return null;
  if (set.length < 3) {
    const missing = REQUIRED.filter((key) => !set.includes(key));
    throw new Error(`${missing.join(', ')} must be set too: OIDC needs issuer, client id and client secret together`);
  }
  const issuer = z.url({ protocol: /^https?$/ }).safeParse(env.OIDC_ISSUER?.trim());
  if (!issuer.success) throw new Error('OIDC_ISSUER must be an http(s) URL');
  const issuerUrl = new URL(issuer.data);
  if (issuerUrl.protocol !== 'https:' && !isLoopbackHost(issuerUrl.hostname))
    throw new Error('OIDC_ISSUER must use https (plain http only for an issuer on this machine)');
  const roleMap: Record<string, Role> = {};
  for (const pair of (env.OIDC_ROLE_MAP ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [claimValue, role] = pair.split('=').map((part) => part?.trim());
    if (!claimValue || !isRole(role)) throw new Error(`OIDC_ROLE_MAP entry "${pair}" must look like group=viewer|editor|manager|admin`);
    roleMap[claimValue] = role;
  }
  const defaultRole = env.OIDC_DEFAULT_ROLE?.trim() || null;
  if (defaultRole !== null && !isRole(defaultRole)) throw new Error('OIDC_DEFAULT_ROLE must be viewer, editor, manager or admin');
  const allowedDomains = (env.OIDC_ALLOWED_DOMAINS ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);
  for (const domain of allowedDomains) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw new Error(`OIDC_ALLOWED_DOMAINS has "${domain}", which is not a domain name`);
  }
  const require = (env.OIDC_REQUIRE_EMAIL_VERIFIED ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0'].includes(require)) throw new Error('OIDC_REQUIRE_EMAIL_VERIFIED must be true or false');
  return {
    requireEmailVerified: require === 'true' || require === '1',
    issuer: issuer.data.replace(/\/+$/, ''),
    clientId: env.OIDC_CLIENT_ID?.trim() ?? '',
    clientSecret: env.OIDC_CLIENT_SECRET?.trim() ?? '',
    roleClaim: env.OIDC_ROLE_CLAIM?.trim() || 'roles',
    roleMap,
    defaultRole,
    allowedDomains,
    name: env.OIDC_NAME?.trim() || 'Single sign-on',
  };
}

/** Why a profile may not sign in (no email, unverified email, a domain not allowed), or null (lib/auth/sign-in-errors.ts says it in words). */
export function oidcRefusal(profile: Record<string, unknown>, config: OidcConfig): SsoRefusal | null {
  const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : '';
  if (!email.includes('@')) return 'SsoNoEmail';
  // "false" means the IdP has not checked that this person owns the address; a claim not sent says nothing either.
  const verified = profile.email_verified === true || profile.email_verified === 'true';
  if (!verified && (config.requireEmailVerified || profile.email_verified !== undefined)) return 'SsoUnverified';
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (config.allowedDomains.length > 0 && !config.allowedDomains.includes(domain)) return 'SsoDomain';
  return null;
}

/** The strongest role the mapped claim values grant, else the default (or null: refused). */
export function roleFromClaims(profile: Record<string, unknown>, config: OidcConfig): Role | null {
  const raw = profile[config.roleClaim];
  const values = Array.isArray(raw)
    ? raw.filter((v): v is string => typeof v === 'string')
    : typeof raw === 'string'
      ? raw.split(/[\s,]+/)
      : [];
  const granted = values
    .map((value) => (Object.hasOwn(config.roleMap, value) ? config.roleMap[value]! : null))
    .filter((r): r is Role => r !== null);
  if (granted.length === 0) return config.defaultRole;
  return granted.sort((a, b) => RANK.indexOf(b) - RANK.indexOf(a))[0] ?? null;
}
