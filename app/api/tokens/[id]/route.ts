import { withRole } from '@/lib/http/index';
import { tokenResponse } from '@/lib/http/tokens';

// One API token: read, changed (scope, expiry, limits) or revoked.
const handler = withRole<{ id: string }>('tokens', (request, session, { id }) => tokenResponse(request, session.user, id));
export const GET = handler;
export const PATCH = handler;
export const DELETE = handler;
