import { withRole } from '@/lib/http/index';
import { subscriptionResponse } from '@/lib/http/alerts';

// The signed-in person's choice of alert emails: read or changed; every role.
export const GET = withRole('browse', (request, session) => subscriptionResponse(request, session));
export const PUT = withRole('browse', (request, session) => subscriptionResponse(request, session));
