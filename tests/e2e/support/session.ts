import { USERS, type RoleName } from '../fixtures';

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
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email: USERS[role].email, password: USERS[role].password, json: 'true' }),
  });
  keep(res);
  if (![...jar.keys()].some((name) => name.endsWith('portal.session'))) throw new Error(`sign-in as ${role} failed (${res.status})`);
  return cookie();
}

/** Every record of a list, walked straight from the sandbox API: the expected value of export tests. */
export async function walkSandbox(origin: string, key: string, kind: 'picks' | 'results', filters: Record<string, string>): Promise<{ id: string }[]> {
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
