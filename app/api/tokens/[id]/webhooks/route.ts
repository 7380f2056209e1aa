import { withRole } from '@/lib/http';
import { endpointsResponse } from '@/lib/webhooks/responses';

// A token's consumer webhooks: listed, or one registered.
const handler = withRole<{ id: string }>('tokens', (request, session, { id }) => endpointsResponse(request, session.user, id));
export const GET = handler;
export const POST = handler;
