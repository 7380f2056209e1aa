import { coverageResponse } from '@/lib/http/coverage';
import { withRole } from '@/lib/http/index';

// Coverage of the licence against delivered picks, streamed as progress then the report; managers and admins.
export const GET = withRole('coverage', (request, session) => coverageResponse(request, session.user.email));
