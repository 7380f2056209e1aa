import { createResponse, listResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// Scheduled deliveries: the list, and a new one (201 with its id); editors and admins.
export const GET = withRole('deliveries', (_request, session) => listResponse(session.user));
export const POST = withRole('deliveries', (request, session) => createResponse(request, session.user));
