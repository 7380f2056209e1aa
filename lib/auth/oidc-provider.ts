import 'server-only';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { oidcRefusal, roleFromClaims, type OidcConfig } from '../config/oidc';

/**
 * The OpenID Connect provider for next-auth, built from the validated OIDC settings (lib/auth/oidc.ts).
 * A refused profile is not thrown (next-auth would send the person back to /login without a word): it
 * carries its refusal to the signIn callback, which sends them to /login?error=<refusal>.
 */
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
    // The ID token must carry the nonce this sign-on sent (a replayed or injected token is refused).
    checks: ['pkce', 'state', 'nonce'],
    profile(profile) {
      const role = roleFromClaims(profile, oidc);
      const refusal = oidcRefusal(profile, oidc) ?? (role ? null : 'SsoNoRole');
      return {
        id: String(profile.sub),
        sub: typeof profile.sub === 'string' ? profile.sub : undefined,
        email: typeof profile.email === 'string' ? profile.email : null,
        name: (profile.name as string | undefined) ?? null,
        // Never used when refused: the signIn callback turns the person away first.
        role: role ?? 'viewer',
        ...(refusal ? { refusal } : {}),
      };
    },
  };
}
