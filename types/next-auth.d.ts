import type { DefaultSession } from 'next-auth';
import type { Role } from '@/lib/auth/roles';

declare module 'next-auth' {
  interface Session {
    user: { email: string; name?: string | null; role: Role } & Omit<DefaultSession['user'], 'email'>;
  }
  interface User {
    role: Role;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    role?: Role;
  }
}
