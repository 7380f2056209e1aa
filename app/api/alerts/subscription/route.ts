import { withRole } from '@/lib/http';
import { subscriptionResponse } from '@/lib/alerts/responses';

// The signed-in person's choice of alert emails: read or changed; every role.
export const GET = withRole('browse', (request, session) => subscriptionResponse(request, session));
export const PUT = withRole('browse', (request, session) => subscriptionResponse(request, session));
