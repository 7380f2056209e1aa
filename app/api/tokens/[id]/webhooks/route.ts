import { withRole } from '@/lib/http/index';
import { endpointsResponse } from '@/lib/http/webhooks';

// A token's consumer webhooks: listed, or one registered.
const handler = withRole<{ id: string }>('tokens', (request, session, { id }) => endpointsResponse(request, session.user, id));
export const GET = handler;
export const POST = handler;
