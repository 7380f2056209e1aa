import { withRole } from '@/lib/http';
import { findResponse } from '@/lib/find/responses';

// The command palette's finder: what the signed-in person may open, by name; every signed-in role.
export const GET = withRole('browse', (request, session) => findResponse(request, session.user));
