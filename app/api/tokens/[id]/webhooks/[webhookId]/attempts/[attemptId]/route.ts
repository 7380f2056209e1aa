import { withRole } from '@/lib/http/index';
import { attemptExchangeResponse } from '@/lib/http/token-logs';

// One attempt's request (headers, body up to 64 KB) and the receiver's answer (status, headers, body up to 4 KB).
export const GET = withRole<{ id: string; webhookId: string; attemptId: string }>(
  'tokens',
  (_request, session, { id, webhookId, attemptId }) => attemptExchangeResponse(session.user, id, webhookId, attemptId),
);
