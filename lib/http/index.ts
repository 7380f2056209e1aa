import 'server-only';
import type { PortalSession } from '../auth/principal';
import { requireApi } from './session';
import type { Capability } from '../vocabulary/roles';
import { getConfig, portalOrigin } from '../config';
import { AppError, toAppError } from '../errors';
import { originProblem } from '../net/origin';

/**
 * Wraps a route handler: refuses requests another site started, checks the session and role, and turns
 * every thrown error into the portal's JSON error.
 * Other sites: the session cookie is SameSite=Lax, so a top-level navigation from another site (or a sibling
 * subdomain, "same-site") carries it; without this check a link on any page could start a whole-set export
 * or coverage walk in a user's name. A request that changes state must also name the portal as its Origin
 * (lib/net/origin.ts; the request policy applies the same rule to every route before Next).
 */
/** What Next hands a route handler besides the request: the dynamic segments of its path. */
export interface RouteContext<P extends Record<string, string> = Record<string, string>> {
  params: Promise<P>;
}

export function withRole<P extends Record<string, string> = Record<string, never>>(
  capability: Capability,
  handler: (request: Request, session: PortalSession, params: P) => Promise<Response>,
) {
  return async (request: Request, context: RouteContext<P>): Promise<Response> => {
    try {
      const site = request.headers.get('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site') {
        throw new AppError({ code: 'FORBIDDEN', message: 'This request came from another site. Open the portal and start it there.' });
      }
      const refused = originProblem(request.method, Object.fromEntries(request.headers), portalOrigin(getConfig()));
      if (refused) throw new AppError({ code: 'FORBIDDEN', message: refused });
      const session = await requireApi(capability);
      return await handler(request, session, await context.params);
    } catch (error) {
      const appError = toAppError(error);
      if (appError.status >= 500 && appError.code === 'INTERNAL') console.error('[portal] route failed:', error);
      return appError.toResponse();
    }
  };
}
