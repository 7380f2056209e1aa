import { withRole } from '@/lib/http';
import { resendResponse } from '@/lib/webhooks/responses';

// Sends a consumer webhook one event again now, or every event after one again, in order.
export const POST = withRole<{ id: string; webhookId: string }>('tokens', (request, session, { id, webhookId }) =>
  resendResponse(request, session.user, id, webhookId),
);
