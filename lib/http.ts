import 'server-only';
import type { Session } from 'next-auth';
import { requireApi } from './auth/session';
import type { Capability } from './auth/roles';
import { toAppError } from './errors';

/** Wraps a route handler: checks the session and role first, turns every thrown error into the portal's JSON error. */
export function withRole(capability: Capability, handler: (request: Request, session: Session) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    try {
      const session = await requireApi(capability);
      return await handler(request, session);
    } catch (error) {
      const appError = toAppError(error);
      if (appError.status >= 500 && appError.code === 'INTERNAL') console.error('[portal] route failed:', error);
      return appError.toResponse();
    }
  };
}
