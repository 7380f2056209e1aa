import { withRole } from '@/lib/http/index';
import { feedHealthResponse } from '@/lib/http/feed-health';

// Each sport's feed health (healthy, degraded, down; whose side; why; since when); every signed-in role (the polling instance: admins).
export const GET = withRole('browse', (_request, session) => feedHealthResponse(session));
