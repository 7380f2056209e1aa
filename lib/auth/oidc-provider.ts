import 'server-only';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { oidcRefusal, roleFromClaims, type OidcConfig } from './oidc';

/** The OpenID Connect provider for next-auth, built from the validated OIDC settings (lib/auth/oidc.ts). */
export function oidcProvider(oidc: OidcConfig): OAuthConfig<Record<string, unknown>> {
  return {
    id: 'oidc',
    name: oidc.name,
    type: 'oauth',
    wellKnown: `${oidc.issuer}/.well-known/openid-configuration`,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    authorization: { params: { scope: 'openid email profile' } },
    idToken: true,
    checks: ['pkce', 'state'],
    profile(profile) {
      const refusal = oidcRefusal(profile, oidc);
      if (refusal) throw new Error(refusal);
      const role = roleFromClaims(profile, oidc);
      if (!role) throw new Error('Your account has no portal role. Ask an administrator.');
      return { id: String(profile.sub), email: String(profile.email), name: (profile.name as string | undefined) ?? null, role };
    },
  };
}
