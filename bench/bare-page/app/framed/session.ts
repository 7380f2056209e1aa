import { decode } from 'next-auth/jwt';
import { cookies } from 'next/headers';

/** The person in the portal's session cookie, or an error. */
export async function framedEmail(): Promise<string> {
  const raw = (await cookies()).get('portal.session')?.value;
  const token = raw ? await decode({ token: raw, secret: process.env.BARE_AUTH_SECRET ?? '' }) : null;
  if (typeof token?.email !== 'string') throw new Error('the framed bare page was asked for without a session it can read');
  return token.email;
}
