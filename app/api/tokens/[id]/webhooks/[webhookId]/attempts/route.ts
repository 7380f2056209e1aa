import { withRole } from '@/lib/http/index';
import { attemptsResponse } from '@/lib/http/webhooks';

// A consumer webhook's attempts, newest first (?before= for the next page).
export const GET = withRole<{ id: string; webhookId: string }>('tokens', (request, session, { id, webhookId }) =>
  attemptsResponse(request, session.user, id, webhookId),
);
