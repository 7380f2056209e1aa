import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A request's route pattern, the label of the request metrics: `/picks/[id]`, never `/picks/pk_123` (a label
 * per id would grow without end, and ids and filter values are not for metrics). The patterns are the ones
 * Next built (`.next/app-path-routes-manifest.json`); a path that fits none is `other`.
 */

export type RouteMatcher = (pathname: string) => string;

/** A pattern's segments as a regular expression: `[id]` one segment, `[...slug]` one or more, `[[...slug]]` none or more. */
function toRegex(pattern: string): string {
  return pattern
    .split('/')
    .map((segment) => {
      if (/^\[\[\.\.\.[^/]+\]\]$/.test(segment)) return '\0optional';
      if (/^\[\.\.\.[^/]+\]$/.test(segment)) return '.+';
      if (/^\[[^/]+\]$/.test(segment)) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/')
    .replace(/\/\0optional/g, '(?:/.*)?');
}

export function routeMatcher(patterns: string[]): RouteMatcher {
  const compiled = [...new Set(patterns)]
    .filter((p) => !p.startsWith('/_'))
    .map((pattern) => ({
      pattern,
      // Static segments first: `/deliveries/preview` before `/deliveries/[id]`, catch-alls last.
      dynamic: (pattern.match(/\[/g) ?? []).length + (pattern.includes('...') ? 10 : 0),
      regex: new RegExp(`^${toRegex(pattern)}/?$`),
    }))
    .sort((a, b) => a.dynamic - b.dynamic);
  return (pathname) => {
    if (pathname.startsWith('/_next/static/')) return '/_next/static';
    if (pathname.startsWith('/_next/')) return '/_next';
    return compiled.find((c) => c.regex.test(pathname))?.pattern ?? 'other';
  };
}

/** The patterns of this build; none when there is no build (development): every path is then `other`. */
export function builtRoutes(root = process.cwd()): string[] {
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, '.next', 'app-path-routes-manifest.json'), 'utf8')) as Record<string, string>;
    return Object.values(manifest);
  } catch {
    return [];
  }
}

/**
 * The class of a route pattern, the label of `portal_http_class_request_duration_seconds` and of bench:soak's
 * figures: pages people look at, exports, the partner's API v1, deliveries, the rest of the portal's API,
 * probes (health, metrics) and Next's assets.
 */
export function routeClass(route: string): 'page' | 'export' | 'api_v1' | 'delivery' | 'api' | 'probe' | 'asset' {
  if (route.startsWith('/_next')) return 'asset';
  if (route.startsWith('/api/v1')) return 'api_v1';
  if (route.startsWith('/api/health') || route === '/metrics') return 'probe';
  if (route.startsWith('/api/export') || route.startsWith('/api/coverage')) return 'export';
  if (route.startsWith('/api/deliveries')) return 'delivery';
  if (route.startsWith('/api/')) return 'api';
  return 'page';
}
