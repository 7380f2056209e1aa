import 'server-only';
import { createHmac } from 'node:crypto';
import { serialize } from 'cookie';
import { authOptions } from '../auth/options';
import type { PortalSession } from '../auth/principal';
import { getConfig } from '../config';
import { AppError, toAppError, invalidFields } from '../errors';
import { fromStore } from '../store';
import { changePreferences, getPreferences } from '../store/preferences';
import { PREFERENCE_COOKIES, PREFERENCE_MAX_AGE, PREFERENCES_OF_COOKIE, type Preferences } from '../vocabulary/preferences';
import { preferencesSchema } from '../vocabulary/preferences-schema';

/**
 * GET and PUT /api/preferences: a person's preferences, from the store, written into this browser's
 * cookies with every answer (the pages read the cookies). The root layout asks the browser to fetch them
 * once after each sign-in (`preferencesOf` does not name the person signed in), so a second browser follows.
 */

const MAX_BODY = 2_048;

/** Which person's preferences a browser's cookies hold: a keyed digest of the email, not the email itself. */
export function preferencesTag(email: string): string {
  return createHmac('sha256', String(authOptions().secret)).update(`preferences:${email}`).digest('hex').slice(0, 24);
}

function cookieLines(preferences: Preferences, email: string): string[] {
  const options = { path: '/', sameSite: 'lax' as const, secure: (getConfig().NEXTAUTH_URL ?? '').startsWith('https://') };
  const line = (name: string, value: string | null | undefined) =>
    value ? serialize(name, value, { ...options, maxAge: PREFERENCE_MAX_AGE }) : serialize(name, '', { ...options, maxAge: 0 });
  // Columns: no cookie is the default set; a chosen set is written out ('none': every column shown).
  const columnsLine = (hidden: readonly string[] | undefined) =>
    hidden === undefined
      ? serialize(PREFERENCE_COOKIES.columns, '', { ...options, maxAge: 0 })
      : serialize(PREFERENCE_COOKIES.columns, hidden.join(',') || 'none', { ...options, maxAge: PREFERENCE_MAX_AGE });
  return [
    line(PREFERENCE_COOKIES.timeZone, preferences.timeZone),
    line(PREFERENCE_COOKIES.theme, preferences.theme === 'system' ? null : preferences.theme),
    line(PREFERENCE_COOKIES.density, preferences.density === 'compact' ? null : preferences.density),
    line(PREFERENCE_COOKIES.nav, preferences.nav === 'icons' ? 'icons' : null),
    columnsLine(preferences.hiddenColumns),
    line(PREFERENCES_OF_COOKIE, preferencesTag(email)),
  ];
}

function answer(preferences: Preferences, email: string): Response {
  const headers = new Headers({ 'Cache-Control': 'private, no-store' });
  for (const line of cookieLines(preferences, email)) headers.append('Set-Cookie', line);
  return Response.json({ preferences }, { headers });
}

const invalid = (details: Record<string, string>) => invalidFields('preferences', details, 'INVALID_PREFERENCES');

async function readChange(request: Request): Promise<Preferences> {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
    throw invalid({ body: 'must be JSON (Content-Type: application/json)' });
  const text = await request.text();
  if (text.length > MAX_BODY) throw new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `Preferences are at most ${MAX_BODY} bytes.` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid({ body: 'is not JSON' });
  }
  const parsed = preferencesSchema.safeParse(body);
  if (!parsed.success) {
    throw invalid(Object.fromEntries(parsed.error.issues.map((issue) => [issue.path.join('.') || 'body', issue.message])));
  }
  return parsed.data;
}

export async function preferencesResponse(request: Request, session: PortalSession): Promise<Response> {
  const email = session.user.email;
  try {
    if (request.method === 'GET') return answer(await fromStore((db) => getPreferences(db, email)), email);
    const change = await readChange(request);
    const saved = await fromStore((db) => changePreferences(db, email, change));
    if (!saved) throw new AppError({ code: 'UNAUTHENTICATED' }); // the account is gone
    return answer(saved, email);
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
