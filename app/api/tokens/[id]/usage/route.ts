import { withRole } from '@/lib/http';
import { usageResponse } from '@/lib/tokens/responses';

// An API token's use per day (requests, records, bytes, refusals, last address).
export const GET = withRole<{ id: string }>('tokens', (_request, session, { id }) => usageResponse(session.user, id));
