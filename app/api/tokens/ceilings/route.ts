import { withRole } from '@/lib/http/index';
import { ceilingsResponse } from '@/lib/tokens/ceilings';

// The most editors may give their own API tokens: read by anyone who may hold tokens, set by admins.
export const GET = withRole('tokens', (request, session) => ceilingsResponse(request, session.user));
export const PUT = withRole('tokens', (request, session) => ceilingsResponse(request, session.user));
