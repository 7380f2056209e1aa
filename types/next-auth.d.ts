import type { DefaultSession } from 'next-auth';
import type { Role } from '@/lib/auth/roles';

declare module 'next-auth' {
  interface Session {
    /** role is absent for a token that is no longer valid (signed out); getPortalSession refuses those. */
    user: { email: string; name?: string | null; role?: Role } & Omit<DefaultSession['user'], 'email'>;
  }
  interface User {
    role: Role;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    role?: Role;
    revoked?: boolean;
  }
}
