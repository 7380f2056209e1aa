import { expect, type Page, type Response as PageResponse } from '@playwright/test';
import { answerChecker } from './openapi-check';

/**
 * Every answer a browser spec gets from the portal's API, checked against the OpenAPI document the portal serves
 * for it: API v1's (/api/v1/openapi.json, no token) or the portal API's (/api/openapi.json, with the caller's
 * session). A status or a JSON body the document does not describe fails the spec that met it: the specs' own
 * calls through `expectDescribed`, and every call a page makes through `watchAnswers` (an automatic fixture).
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

/** Whether an answer is one of the portal API's (not sign-in's, not a document itself). */
function judged(origin: string, path: string): { pathname: string; v1: boolean } | null {
  const pathname = new URL(path, origin).pathname;
  if (!pathname.startsWith('/api/') || pathname.startsWith('/api/auth/') || pathname.endsWith('openapi.json')) return null;
  return { pathname, v1: pathname.startsWith('/api/v1/') };
}

async function problemOf(
  origin: string,
  cookie: string | undefined,
  method: string,
  path: string,
  status: number,
  contentType: string,
  text: string | undefined,
): Promise<string | null> {
  const which = judged(origin, path);
  if (!which) return null;
  const check = await checkerFor(origin, which.v1, cookie);
  if (!check) return null;
  const json = contentType.includes('application/json') && text !== undefined && text !== '';
  return check(method, path, status, json ? JSON.parse(text) : undefined, contentType);
}

export async function expectDescribed(
  origin: string,
  cookie: string | undefined,
  method: string,
  path: string,
  res: Response,
  text: string,
): Promise<void> {
  const problem = await problemOf(origin, cookie, method, path, res.status, res.headers.get('content-type') ?? '', text);
  expect(problem, `${method} ${new URL(path, origin).pathname}: the answer, against the portal's OpenAPI document`).toBeNull();
}

/** How long a page's answer may take to arrive whole before only its status is judged (a stream cut short, a download). */
const BODY_WAIT_MS = 5_000;

/**
 * Watches every answer the page gets from the portal's API; the returned function says what the documents do not
 * describe. Streams (server-sent events) and redirects are not judged; a body that does not arrive in time is
 * judged by its status alone.
 */
export function watchAnswers(page: Page): () => Promise<string[]> {
  const checks: Promise<string | null>[] = [];
  page.on('response', (response: PageResponse) => {
    const url = new URL(response.url());
    const status = response.status();
    const contentType = response.headers()['content-type'] ?? '';
    if (!judged(url.origin, url.pathname) || (status >= 300 && status < 400) || contentType.includes('text/event-stream')) return;
    const method = response.request().method();
    checks.push(
      (async () => {
        const cookies = await page.context().cookies(url.origin);
        const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ') || undefined;
        const text = contentType.includes('application/json')
          ? await Promise.race([
              response.text().catch(() => undefined),
              new Promise<undefined>((resolve) => setTimeout(resolve, BODY_WAIT_MS)),
            ])
          : undefined;
        return problemOf(url.origin, cookie, method, `${url.pathname}${url.search}`, status, contentType, text);
      })().catch((error: Error) => `${method} ${url.pathname}: ${error.message}`),
    );
  });
  return async () => (await Promise.all(checks)).filter((p): p is string => p !== null);
}
