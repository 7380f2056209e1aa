import { withRole } from '@/lib/http';
import { countResponse } from '@/lib/records/responses';

// How many records the filters match (a whole walk, on request); every signed-in role.
export const GET = withRole('browse', (request, session) => countResponse(request, session.user.email));
