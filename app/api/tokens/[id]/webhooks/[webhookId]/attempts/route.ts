import { withRole } from '@/lib/http';
import { attemptsResponse } from '@/lib/webhooks/responses';

// A consumer webhook's attempts, newest first (?before= for the next page).
export const GET = withRole<{ id: string; webhookId: string }>('tokens', (request, session, { id, webhookId }) =>
  attemptsResponse(request, session.user, id, webhookId),
);
