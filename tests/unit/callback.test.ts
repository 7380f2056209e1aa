import { describe, expect, it } from 'vitest';
import { safeCallbackPath, safeRedirect } from '@/lib/auth/callback';
import { OPEN_REDIRECT_VARIANTS } from '../support/redirect-variants';

const portal = 'https://portal.example';

/** Where a browser would really go if sent to this path of the portal. */
const landing = (path: string) => new URL(path, `${portal}/`);

describe('callback URLs stay inside the portal', () => {
  it.each(OPEN_REDIRECT_VARIANTS)('%j lands on a portal path', (value) => {
    const path = safeCallbackPath(value);
    expect(path.startsWith('/')).toBe(true);
    expect(path.startsWith('//')).toBe(false);
    expect(landing(path).origin).toBe(portal);
    expect(landing(path).host).not.toContain('evil');
  });

  it.each(OPEN_REDIRECT_VARIANTS)('%j is refused by the redirect callback too', (value) => {
    const url = safeRedirect(value, portal);
    expect(new URL(url).origin).toBe(portal);
    expect(new URL(url).pathname.startsWith('//')).toBe(false);
  });

  it('returns the resolved path, not the candidate, so dot segments cannot reappear', () => {
    expect(safeCallbackPath('/.//evil.example')).toBe('/');
    expect(safeCallbackPath('/picks/../results?sport=NFL')).toBe('/results?sport=NFL');
    expect(safeCallbackPath('/a/./b')).toBe('/a/b');
  });

  it('keeps a legitimate path with its query and fragment', () => {
    expect(safeCallbackPath('/picks?sport=NFL&status=live')).toBe('/picks?sport=NFL&status=live');
    expect(safeCallbackPath('/picks/abc%2Fdef#top')).toBe('/picks/abc%2Fdef#top');
    expect(safeRedirect(`${portal}/licence`, portal)).toBe(`${portal}/licence`);
  });

  it('refuses empty, non-string and very long values', () => {
    expect(safeCallbackPath('')).toBe('/');
    expect(safeCallbackPath(undefined)).toBe('/');
    expect(safeCallbackPath(`/${'a'.repeat(5000)}`)).toBe('/');
  });
});
