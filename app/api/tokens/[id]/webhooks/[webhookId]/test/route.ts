import { withRole } from '@/lib/http/index';
import { testResponse } from '@/lib/http/webhooks';

// Sends a consumer webhook a signed test event now.
export const POST = withRole<{ id: string; webhookId: string }>('tokens', (_request, session, { id, webhookId }) =>
  testResponse(session.user, id, webhookId),
);
