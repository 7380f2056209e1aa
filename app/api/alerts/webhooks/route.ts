import { withRole } from '@/lib/http';
import { webhooksResponse } from '@/lib/alerts/webhook-responses';

// The shared webhooks alerts go to: listed and added; admins.
export const GET = withRole('alerts', (request, session) => webhooksResponse(request, session));
export const POST = withRole('alerts', (request, session) => webhooksResponse(request, session));
