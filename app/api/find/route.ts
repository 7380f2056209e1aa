import { withRole } from '@/lib/http/index';
import { findResponse } from '@/lib/http/find';

// The command palette's finder: what the signed-in person may open, by name; every signed-in role.
export const GET = withRole('browse', (request, session) => findResponse(request, session.user));
