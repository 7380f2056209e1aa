import 'server-only';
import type { AuthOptions } from 'next-auth';
import { encode, type JWT } from 'next-auth/jwt';
import CredentialsProvider from 'next-auth/providers/credentials';
import { recordAudit } from '../audit/record';
import { getConfig } from '../config';
import { safeRedirect } from './callback';
import { clientAddress } from './client-address';
import { oidcProvider } from './oidc-provider';
import { DUMMY_HASH, verifyPassword } from './passwords';
import { revokeSession, isSessionRevoked } from './revocation';
import { isRole } from '../vocabulary/roles';
import { currentAccount } from './accounts';
import { standing } from './principal';
import { continueSession, ENDED, sessionEndsAt, startSession, type SessionPolicy } from './session-token';
import { sessionCookieName } from './session-cookie';
import type { SsoRefusal } from '../vocabulary/sign-in-errors';
import { checkSignIn, limitHashing, recordSignInFailure, recordSignInSuccess } from './sign-in-limits';
import { findUser, normaliseEmail, recordSignIn, signInOidcAccount } from './users';

/**
 * next-auth (v4) configuration: credentials from the store's accounts, optional OIDC, JWT sessions with an
 * identity that survives re-encoding, an absolute lifetime (SESSION_MAX_HOURS) and the account re-read
 * on use (lib/auth/session-token.ts).
 */

export const SIGN_IN_MESSAGES = {
  address: (s: number) => `Too many failed sign-ins from your address. Try again in ${s} s.`,
  account: (s: number) => `Too many failed sign-ins for this account. Try again in ${s} s, or from a device that has not failed.`,
  busy: (s: number) => `Sign-in is busy. Try again in ${s} s.`,
  demo: 'Demo accounts work only with the sandbox upstream.',
  store: "Sign-in is unavailable: the portal's database cannot be reached. Try again in a minute.",
} as const;

let cached: AuthOptions | undefined;
let policy: SessionPolicy | undefined;

/** The rules an open session is judged by (lib/auth/session-token.ts), from the configuration. */
function sessionPolicy(): SessionPolicy {
  const config = getConfig();
  policy ??= {
    maxAgeSeconds: Math.round(config.SESSION_MAX_HOURS * 3600),
    isRevoked: isSessionRevoked,
    findAccount: currentAccount,
    demoRefused: !config.PORTAL_SANDBOX,
  };
  return policy;
}

/**
 * What a session token is worth now, as next-auth's jwt callback and lib/http/session.ts both judge it on
 * every use: revoked, past its absolute end, or an account removed, disabled or not allowed → ENDED;
 * demoted → the new role.
 */
export async function checkSessionToken(token: JWT): Promise<JWT> {
  return token.revoked ? ENDED : continueSession(token, sessionPolicy());
}

/** A refusal whose message is meant for the person signing in (anything else from the store means it is away). */
class SignInRefused extends Error {}

async function withStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SignInRefused) throw error;
    console.error(`[auth] sign-in refused: the store failed (${(error as Error).message})`);
    throw new Error(SIGN_IN_MESSAGES.store);
  }
}

export function authOptions(): AuthOptions {
  if (cached) return cached;
  const config = getConfig();
  const secure = (config.NEXTAUTH_URL ?? '').startsWith('https://');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure };
  const maxAge = Math.round(config.SESSION_MAX_HOURS * 3600);
  const secret = config.AUTH_SECRET ?? config.NEXTAUTH_SECRET;
  cached = {
    secret,
    session: { strategy: 'jwt', maxAge, updateAge: 60 * 60 },
    jwt: {
      maxAge,
      // The token's own expiry is the session's absolute end, however often next-auth re-encodes it.
      encode: async (params) => {
        // next-auth sets exp = now (whole seconds, read after an async key derivation) + maxAge: count in the
        // same second, and encode again in the rare case a second boundary passed meanwhile.
        const end = Math.floor(sessionEndsAt(params.token ?? {}, maxAge) / 1000);
        for (;;) {
          const second = Math.floor(Date.now() / 1000);
          const jwt = await encode({ ...params, maxAge: Math.max(1, Math.min(maxAge, end - second)) });
          if (Math.floor(Date.now() / 1000) === second) return jwt;
        }
      },
    },
    pages: { signIn: '/login', error: '/login' },
    cookies: {
      // __Host- binds the cookie to this exact origin over https; plain names over http (local sandbox).
      sessionToken: { name: sessionCookieName(secure), options: cookie },
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
          const address = clientAddress(req?.headers);
          const audit = (outcome: 'complete' | 'failed', errorCode: string | null, role: string | null = null) =>
            recordAudit({ actor: email || '(none)', role, action: 'sign-in', outcome, errorCode, address });
          return withStore(async () => {
            const verdict = await checkSignIn(email, address);
            if (!verdict.ok) {
              await audit('failed', `LIMITED_${verdict.reason.toUpperCase()}`);
              throw new SignInRefused(SIGN_IN_MESSAGES[verdict.reason](verdict.retryAfterSeconds));
            }
            const user = email ? await findUser(email) : undefined;
            // Always hash, so an unknown account takes as long as a wrong password.
            const valid = await limitHashing(() => verifyPassword(password, user?.passwordHash ?? DUMMY_HASH));
            if (!user || !valid || user.disabled) {
              await recordSignInFailure(email, address);
              await audit('failed', user?.disabled && valid ? 'ACCOUNT_DISABLED' : 'INVALID_CREDENTIALS');
              return null;
            }
            if (!standing(user, { kind: 'person', email: user.email, role: user.role }, null, sessionPolicy().demoRefused).ok) {
              await audit('failed', 'DEMO_REFUSED');
              throw new SignInRefused(SIGN_IN_MESSAGES.demo);
            }
            await Promise.all([recordSignInSuccess(email), recordSignIn(email)]);
            await audit('complete', null, user.role);
            return { id: user.email, email: user.email, name: user.email, role: user.role, sessionEpoch: user.sessionEpoch };
          });
        },
      }),
      ...(config.oidc ? [oidcProvider(config.oidc)] : []),
    ],
    events: {
      async signIn({ user, account }) {
        // Credentials sign-ins are recorded by authorize(), failures included; this records single sign-on.
        if (account?.provider && account.provider !== 'credentials' && user.email)
          await recordAudit({
            actor: user.email,
            role: user.role ?? null,
            action: 'sign-in',
            outcome: 'complete',
            target: account.provider,
          });
      },
      async signOut({ token }) {
        if (token?.sid) await revokeSession(token.sid, sessionEndsAt(token, maxAge));
        if (typeof token?.email === 'string')
          await recordAudit({ actor: token.email, role: isRole(token.role) ? token.role : null, action: 'sign-out', outcome: 'complete' });
      },
    },
    callbacks: {
      async signIn({ user, account }) {
        if (!account || account.provider === 'credentials') return true;
        const refuse = async (refusal: SsoRefusal) => {
          await recordAudit({
            actor: user.email ?? '(none)',
            action: 'sign-in',
            outcome: 'failed',
            errorCode: refusal,
            target: account.provider,
          });
          return `/login?error=${refusal}`;
        };
        if (user.refusal || !user.email) return refuse(user.refusal ?? 'SsoNoEmail');
        // Single sign-on: the person gets an account of the store (made now, or refreshed), which an admin can disable.
        const sso = await withStore(() => signInOidcAccount(normaliseEmail(user.email!), user.role, user.sub ?? user.id));
        if (sso === 'password') return refuse('SsoPasswordAccount');
        if (sso === 'other-subject') return refuse('SsoOtherSubject');
        if (sso.disabled) return refuse('SsoDisabled');
        user.sessionEpoch = sso.sessionEpoch;
        return true;
      },
      async jwt({ token, user, account }) {
        if (user)
          return startSession(
            token,
            { email: user.email, role: user.role, sessionEpoch: user.sessionEpoch },
            account?.provider ?? 'credentials',
          );
        // A refused token carries no role from here on: every page and handler then treats it as signed out.
        return checkSessionToken(token);
      },
      session({ session, token }) {
        // An ended session (signed out, reset, disabled, expired) tells GET /api/auth/session nothing: {}.
        if (!isRole(token.role)) return {} as typeof session;
        return { ...session, user: { ...session.user, email: token.email ?? '', role: token.role } };
      },
      redirect({ url, baseUrl }) {
        return safeRedirect(url, baseUrl);
      },
    },
  };
  return cached;
}
