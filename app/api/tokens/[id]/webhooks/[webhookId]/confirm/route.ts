import { withRole } from '@/lib/http/index';
import { confirmResponse } from '@/lib/http/webhooks';

// The token's owner confirms a consumer webhook someone else set up: only then does it send for them.
export const POST = withRole<{ id: string; webhookId: string }>('tokens', (_request, session, { id, webhookId }) =>
  confirmResponse(session.user, id, webhookId),
);
