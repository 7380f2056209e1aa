const ORIGIN = 'http://portal.invalid';

/**
 * Where a person may be sent after signing in: a path of this portal, never another origin. The
 * candidate is resolved against the portal's own origin first (dot segments, %2e, tabs and newlines are
 * normalised by URL parsing) and accepted only if the origin is unchanged; the resolved path is returned,
 * so what was checked is exactly what the browser is sent to.
 */
export function safeCallbackPath(value: string | null | undefined): string {
  if (!value || typeof value !== 'string' || value.length > 2048) return '/';
  // Browsers read a backslash as a slash, and URL parsing drops tabs and newlines: refuse both outright.
  if (value.includes('\\') || /[\u0000-\u001f\u007f]/.test(value)) return '/';
  try {
    const resolved = new URL(value, `${ORIGIN}/`);
    if (resolved.origin !== ORIGIN) return '/';
    const path = `${resolved.pathname}${resolved.search}${resolved.hash}`;
    // A resolved path starting with // would be scheme-relative to a browser: another host.
    return path.startsWith('/') && !path.startsWith('//') ? path : '/';
  } catch {
    return '/';
  }
}

/** next-auth's redirect callback: an absolute URL of the portal itself, or the portal's root. */
export function safeRedirect(url: string, baseUrl: string): string {
  let candidate = url;
  try {
    const base = new URL(baseUrl);
    const absolute = new URL(url, base);
    if (absolute.origin !== base.origin) return `${baseUrl}/`;
    candidate = `${absolute.pathname}${absolute.search}${absolute.hash}`;
  } catch {
    return `${baseUrl}/`;
  }
  return `${baseUrl}${safeCallbackPath(candidate)}`;
}
