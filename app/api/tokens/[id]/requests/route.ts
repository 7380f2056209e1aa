import { withRole } from '@/lib/http/index';
import { tokenRequestsResponse } from '@/lib/http/token-logs';

// A token's requests to API v1 and the MCP server, newest first (?status=429|4xx&path=&before=).
export const GET = withRole<{ id: string }>('tokens', (request, session, { id }) => tokenRequestsResponse(request, session.user, id));
