import { withRole } from '@/lib/http/index';
import { resendResponse } from '@/lib/http/webhooks';

// Sends a consumer webhook one event again now, or every event after one again, in order.
export const POST = withRole<{ id: string; webhookId: string }>('tokens', (request, session, { id, webhookId }) =>
  resendResponse(request, session.user, id, webhookId),
);
