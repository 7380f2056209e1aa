import { withRole } from '@/lib/http/index';
import { endpointResponse } from '@/lib/http/webhooks';

// One consumer webhook: read, changed (URL, kinds, secret, enabled) or removed.
type Params = { id: string; webhookId: string };
const handler = withRole<Params>('tokens', (request, session, { id, webhookId }) => endpointResponse(request, session.user, id, webhookId));
export const GET = handler;
export const PATCH = handler;
export const DELETE = handler;
