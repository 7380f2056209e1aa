import { withRole } from '@/lib/http';
import { feedHealthResponse } from '@/lib/feed-health/responses';

// Each sport's feed health (healthy, degraded, down; whose side; why; since when); every signed-in role (the polling instance: admins).
export const GET = withRole('browse', (_request, session) => feedHealthResponse(session));
