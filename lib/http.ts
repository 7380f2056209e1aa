import 'server-only';
import { requireApi, type PortalSession } from './auth/session';
import type { Capability } from './auth/roles';
import { AppError, toAppError } from './errors';

/**
 * Wraps a route handler: refuses requests another site started, checks the session and role, and turns
 * every thrown error into the portal's JSON error.
 * Cross-site: the session cookie is SameSite=Lax, so a top-level navigation from another site carries it;
 * without this check a link on any page could start a whole-set export or coverage walk in a user's name.
 * Browsers send Sec-Fetch-Site; tools that send none (curl, scripts) are not browsers driven by a third party.
 */
export function withRole(capability: Capability, handler: (request: Request, session: PortalSession) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    try {
      if (request.headers.get('sec-fetch-site') === 'cross-site') {
        throw new AppError({ code: 'FORBIDDEN', message: 'This request came from another site. Open the portal and start it there.' });
      }
      const session = await requireApi(capability);
      return await handler(request, session);
    } catch (error) {
      const appError = toAppError(error);
      if (appError.status >= 500 && appError.code === 'INTERNAL') console.error('[portal] route failed:', error);
      return appError.toResponse();
    }
  };
}
