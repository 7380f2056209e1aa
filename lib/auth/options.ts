import 'server-only';
import type { AuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { getConfig } from '../config';
import { roleFromClaims, type OidcConfig } from './oidc';
import { DUMMY_HASH, verifyPassword } from './passwords';
import { isRevoked, revokeToken } from './revocation';
import { isRole, type Role } from './roles';
import { recordSignInFailure, recordSignInSuccess, signInWait } from './sign-in-throttle';
import { findUser, normaliseEmail } from './users';
import { safeRedirect } from './callback';

/** next-auth (v4) configuration: credentials from the users file, optional OIDC, 8-hour JWT sessions. */

export const SESSION_MAX_AGE_S = 8 * 60 * 60; // a working day, not next-auth's 30-day default

export function clientAddress(headers: Record<string, unknown> | Headers | undefined): string {
  const read = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers?.[name] as string | undefined));
  return read('x-forwarded-for')?.split(',')[0]?.trim() || read('x-real-ip') || 'unknown';
}

function oidcProvider(oidc: OidcConfig): OAuthConfig<Record<string, unknown>> {
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
      const role = roleFromClaims(profile, oidc);
      if (!role) throw new Error('Your account has no portal role. Ask an administrator.');
      return { id: String(profile.sub), email: String(profile.email ?? profile.sub), name: (profile.name as string | undefined) ?? null, role };
    },
  };
}

let cached: AuthOptions | undefined;

export function authOptions(): AuthOptions {
  if (cached) return cached;
  const config = getConfig();
  const secure = (config.NEXTAUTH_URL ?? '').startsWith('https://');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure };
  cached = {
    secret: config.AUTH_SECRET ?? config.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S, updateAge: 60 * 60 },
    jwt: { maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/login', error: '/login' },
    cookies: {
      // __Host- binds the cookie to this exact origin over https; plain names over http (local sandbox).
      sessionToken: { name: secure ? '__Host-portal.session' : 'portal.session', options: cookie },
      csrfToken: { name: secure ? '__Host-portal.csrf' : 'portal.csrf', options: cookie },
      callbackUrl: { name: secure ? '__Secure-portal.callback' : 'portal.callback', options: { ...cookie, httpOnly: true } },
      state: { name: secure ? '__Secure-portal.state' : 'portal.state', options: { ...cookie, maxAge: 900 } },
      pkceCodeVerifier: { name: secure ? '__Secure-portal.pkce' : 'portal.pkce', options: { ...cookie, maxAge: 900 } },
      nonce: { name: secure ? '__Secure-portal.nonce' : 'portal.nonce', options: cookie },
    },
    providers: [
      CredentialsProvider({
        id: 'credentials',
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, req) {
          const email = normaliseEmail(String(credentials?.email ?? '')).slice(0, 320);
          const password = String(credentials?.password ?? '').slice(0, 1024);
          const keys = [`account:${email}`, `address:${clientAddress(req?.headers)}`];
          const wait = signInWait(keys);
          if (wait > 0) throw new Error(`Too many failed sign-ins. Try again in ${wait} s.`);
          const user = email ? await findUser(config.PORTAL_USERS_FILE, email) : undefined;
          // Always hash, so an unknown account takes as long as a wrong password.
          const valid = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
          if (!user || !valid) {
            recordSignInFailure(keys);
            return null;
          }
          recordSignInSuccess(keys);
          return { id: user.email, email: user.email, name: user.email, role: user.role };
        },
      }),
      ...(config.oidc ? [oidcProvider(config.oidc)] : []),
    ],
    events: {
      signOut({ token }) {
        revokeToken(token?.jti, token?.exp);
      },
    },
    callbacks: {
      jwt({ token, user }) {
        if (user) token.role = user.role;
        // A signed-out token carries no role from here on: every page and handler then treats it as signed out.
        if (isRevoked(token.jti)) return { revoked: true };
        return token;
      },
      session({ session, token }) {
        const role: Role | undefined = isRole(token.role) ? token.role : undefined;
        return { ...session, user: { ...session.user, email: token.email ?? '', role } };
      },
      redirect({ url, baseUrl }) {
        return safeRedirect(url, baseUrl);
      },
    },
  };
  return cached;
}
