import { requestContext } from '../process-state';

/**
 * What a request's log line says beyond what the server sees (docs/operations.md#logs): who asked (their
 * role; their email only with LOG_USERS=1) and the upstream's request ids it caused. Outside a request
 * (background work, tests) these do nothing.
 */

/** The portal's id of the request being served: X-Request-Id, error bodies and its log line carry it. */
export const currentRequestId = (): string | null => requestContext()?.requestId ?? null;

export function noteRequestUser(user: { role: string; email: string }): void {
  const context = requestContext();
  if (context) context.user = { role: user.role, email: user.email };
}

// The spec gives the format as req_ followed by an identifier; anything else is not written as it came.
const UPSTREAM_ID = /^[\w.:-]{1,100}$/;

export function noteUpstreamRequest(id: string | null): void {
  const context = requestContext();
  if (!context || !id || context.upstream.length >= 50) return;
  context.upstream.push(UPSTREAM_ID.test(id) ? id : '(unreadable id)');
}
