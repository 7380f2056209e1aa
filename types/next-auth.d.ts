import type { DefaultSession } from 'next-auth';
import type { Role } from '@/lib/vocabulary/roles';

declare module 'next-auth' {
  interface Session {
    /** role is absent for a token that is no longer valid (signed out); getPortalSession refuses those. */
    user: { email: string; name?: string | null; role?: Role } & Omit<DefaultSession['user'], 'email'>;
  }
  interface User {
    role: Role;
    /** The account's session epoch at sign-in (lib/auth/session-token.ts). */
    sessionEpoch?: number;
    /** Why single sign-on turns this person away (lib/auth/sign-in-errors.ts), decided from the profile. */
    refusal?: import('@/lib/vocabulary/sign-in-errors').SsoRefusal;
    /** The identity provider's subject: a single sign-on account is bound to it. */
    sub?: string;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    role?: Role;
    revoked?: boolean;
    /** The session's identity, set at sign-in and kept through every re-encoding (revocation targets it). */
    sid?: string;
    /** Sign-in time, seconds since the epoch: the absolute lifetime counts from here. */
    signedInAt?: number;
    /** 'credentials' (the users store) or 'oidc'. */
    provider?: string;
    /** The account's session epoch when the session began: any other epoch ends the session. */
    epoch?: number;
  }
}
