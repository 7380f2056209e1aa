import { createResponse, listResponse } from '@/lib/deliveries/responses';
import { withRole } from '@/lib/http';

// Scheduled deliveries: the list, and a new one (201 with its id); editors and admins.
export const GET = withRole('deliveries', (_request, session) => listResponse(session.user));
export const POST = withRole('deliveries', (request, session) => createResponse(request, session.user));
