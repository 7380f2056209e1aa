import { z } from 'zod';
import { isRole, type Role } from './roles';

/**
 * Optional single sign-on. Set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to add an OpenID
 * Connect provider beside credentials. Roles come from a claim (OIDC_ROLE_CLAIM, default "roles": a
 * string or a list) mapped by OIDC_ROLE_MAP ("group=role,group=role"); claim values that are already
 * role names map to themselves. OIDC_DEFAULT_ROLE gives everyone else a role; unset, they are refused.
 */

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  roleClaim: string;
  roleMap: Record<string, Role>;
  defaultRole: Role | null;
  name: string;
}

const RANK: Role[] = ['viewer', 'manager', 'editor', 'admin'];

export function parseOidcConfig(env: Record<string, string | undefined>): OidcConfig | null {
  const set = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((key) => env[key]?.trim());
  if (set.length === 0) return null;
  if (set.length < 3) {
    const missing = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((key) => !set.includes(key));
    throw new Error(`${missing.join(', ')} must be set too: OIDC needs issuer, client id and client secret together`);
  }
  const issuer = z.url({ protocol: /^https?$/ }).safeParse(env.OIDC_ISSUER?.trim());
  if (!issuer.success) throw new Error('OIDC_ISSUER must be an http(s) URL');
  const roleMap: Record<string, Role> = {};
  for (const pair of (env.OIDC_ROLE_MAP ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const [claimValue, role] = pair.split('=').map((part) => part?.trim());
    if (!claimValue || !isRole(role)) throw new Error(`OIDC_ROLE_MAP entry "${pair}" must look like group=viewer|editor|manager|admin`);
    roleMap[claimValue] = role;
  }
  const defaultRole = env.OIDC_DEFAULT_ROLE?.trim() || null;
  if (defaultRole !== null && !isRole(defaultRole)) throw new Error('OIDC_DEFAULT_ROLE must be viewer, editor, manager or admin');
  return {
    issuer: issuer.data.replace(/\/+$/, ''),
    clientId: env.OIDC_CLIENT_ID!.trim(),
    clientSecret: env.OIDC_CLIENT_SECRET!.trim(),
    roleClaim: env.OIDC_ROLE_CLAIM?.trim() || 'roles',
    roleMap,
    defaultRole,
    name: env.OIDC_NAME?.trim() || 'Single sign-on',
  };
}

/** The strongest role any claim value grants, else the default (or null: refused). */
export function roleFromClaims(profile: Record<string, unknown>, config: OidcConfig): Role | null {
  const raw = profile[config.roleClaim];
  const values = Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : typeof raw === 'string' ? raw.split(/[\s,]+/) : [];
  const granted = values.map((value) => config.roleMap[value] ?? (isRole(value) ? value : null)).filter((r): r is Role => r !== null);
  if (granted.length === 0) return config.defaultRole;
  return granted.sort((a, b) => RANK.indexOf(b) - RANK.indexOf(a))[0] ?? null;
}
