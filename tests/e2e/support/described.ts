import { expect } from '@playwright/test';
import { answerChecker } from '../../support/openapi-check';

/**
 * Every answer a browser spec gets from the portal's API, checked against the OpenAPI document the portal serves
 * for it: API v1's (/api/v1/openapi.json, no token) or the portal API's (/api/openapi.json, with the caller's
 * session). A status or a JSON body the document does not describe fails the spec that met it.
 */

type Checker = ReturnType<typeof answerChecker>;
const loaded = new Map<string, Checker>();

async function checkerFor(origin: string, v1: boolean, cookie: string | undefined): Promise<Checker | null> {
  const key = `${origin} ${v1 ? 'v1' : 'portal'}`;
  const known = loaded.get(key);
  if (known) return known;
  const res = await fetch(`${origin}${v1 ? '/api/v1/openapi.json' : '/api/openapi.json'}`, { headers: cookie ? { cookie } : {} });
  // Without a session that may read it (a refused caller), the next call with one loads it.
  if (!res.ok) return null;
  const checker = answerChecker(await res.json());
  loaded.set(key, checker);
  return checker;
}

export async function expectDescribed(
  origin: string,
  cookie: string | undefined,
  method: string,
  path: string,
  res: Response,
  text: string,
): Promise<void> {
  const pathname = new URL(path, origin).pathname;
  if (!pathname.startsWith('/api/') || pathname.startsWith('/api/auth/') || pathname.endsWith('openapi.json')) return;
  const v1 = pathname.startsWith('/api/v1/');
  const check = await checkerFor(origin, v1, cookie);
  if (!check) return;
  const json = (res.headers.get('content-type') ?? '').includes('application/json') && text !== '';
  const problem = check(method, path, res.status, json ? JSON.parse(text) : undefined);
  expect(problem, `${method} ${pathname}: the answer, against the portal's OpenAPI document`).toBeNull();
}
