import { withRole } from '@/lib/http/index';
import { countResponse } from '@/lib/http/records';

// How many records the filters match (a whole walk, on request); every signed-in role.
export const GET = withRole('browse', (request, session) => countResponse(request, session.user.email));
