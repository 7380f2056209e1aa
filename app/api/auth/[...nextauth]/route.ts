import NextAuth from 'next-auth';
import { authOptions } from '@/lib/auth/options';

// next-auth's standard endpoints: /api/auth/csrf, /api/auth/callback/credentials, /api/auth/signout, ...
const handler = (request: Request, context: { params: Promise<{ nextauth: string[] }> }) => NextAuth(authOptions())(request, context);

export { handler as GET, handler as POST };
