import { withRole } from '@/lib/http/index';
import { usageResponse } from '@/lib/http/tokens';

// An API token's use per day (requests, records, bytes, refusals, last address).
export const GET = withRole<{ id: string }>('tokens', (_request, session, { id }) => usageResponse(session.user, id));
