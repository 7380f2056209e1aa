import { randomUUID } from 'node:crypto';
import { encode } from 'next-auth/jwt';
import { credentials, STAFF, type RoleName } from './fixtures';

/** The AUTH_SECRET of the e2e portals on a "real" upstream (playwright.config.ts). */
export const E2E_SECRET = 'e2e-only-secret-not-for-production-0123456789';

/** A session token as those portals make it at sign-in (identity, sign-in time, provider), for forging tests. */
export const sessionToken = (claims: Record<string, unknown>, maxAge: number) =>
  encode({
    token: {
      email: STAFF.admin.email,
      name: 'admin',
      role: 'admin',
      sid: randomUUID(),
      signedInAt: Math.floor(Date.now() / 1000),
      provider: 'credentials',
      ...claims,
    },
    secret: E2E_SECRET,
    maxAge,
  });

/** Signs in over plain HTTP (next-auth's CSRF + credentials endpoints) and returns the Cookie header to send. */
export async function sessionCookie(origin: string, role: RoleName): Promise<string> {
  const csrf = await fetch(`${origin}/api/auth/csrf`);
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!, value.join('='));
    }
  };
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${origin}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: cookie(), origin },
    body: new URLSearchParams({
      csrfToken,
      email: credentials(role, origin).email,
      password: credentials(role, origin).password,
      json: 'true',
    }),
  });
  keep(res);
  if (![...jar.keys()].some((name) => name.endsWith('portal.session'))) throw new Error(`sign-in as ${role} failed (${res.status})`);
  return cookie();
}

/** Every record of a list, walked straight from the sandbox API: the expected value of export tests. */
export async function walkSandbox(
  origin: string,
  key: string,
  kind: 'picks' | 'results',
  filters: Record<string, string>,
): Promise<{ id: string }[]> {
  const out: { id: string }[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${origin}/api/v1/${kind}?${params}`, { headers: { Authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`sandbox ${res.status}`);
    const body = (await res.json()) as { data: { id: string }[]; page: { nextCursor: string | null; hasMore: boolean } };
    out.push(...body.data);
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return out;
}

/** The Cookie header after applying a response's Set-Cookie lines to it. */
export function withSetCookies(cookie: string, res: Response): string {
  const jar = new Map(
    cookie
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
  return [...jar]
    .filter(([, value]) => value !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
}

/** next-auth's CSRF token, and the cookie that goes with it. */
export async function csrf(origin: string, cookie = ''): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${origin}/api/auth/csrf`, { headers: { cookie } });
  return { token: ((await res.json()) as { csrfToken: string }).csrfToken, cookie: withSetCookies(cookie, res) };
}

/** A JSON sign-in (what the login form does): where next-auth sends the browser, the error it names, and the cookie. */
export async function jsonSignIn(
  origin: string,
  email: string,
  password: string,
  callbackUrl?: string,
  headers: Record<string, string> = {},
) {
  const { token, cookie } = await csrf(origin);
  const res = await fetch(`${origin}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie, origin, ...headers },
    body: new URLSearchParams({ csrfToken: token, email, password, json: 'true', ...(callbackUrl === undefined ? {} : { callbackUrl }) }),
  });
  const url = ((await res.json().catch(() => ({}))) as { url?: string }).url ?? '';
  const after = withSetCookies(cookie, res);
  return {
    url,
    error: url ? new URL(url, origin).searchParams.get('error') : null,
    cookie: after,
    signedIn: /portal\.session=/.test(after),
  };
}

export async function signOut(origin: string, cookie: string): Promise<Response> {
  const { token, cookie: withCsrf } = await csrf(origin, cookie);
  return fetch(`${origin}/api/auth/signout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: withCsrf, origin },
    body: new URLSearchParams({ csrfToken: token, json: 'true' }),
  });
}

/** Whether the portal sees a signed-in person with a role behind this cookie. */
export async function hasSession(origin: string, cookie: string): Promise<boolean> {
  const session = (await (await fetch(`${origin}/api/auth/session`, { headers: { cookie } })).json()) as {
    user?: { role?: string };
  } | null;
  return Boolean(session?.user?.role);
}
