import { withRole } from '@/lib/http/index';
import { webhooksResponse } from '@/lib/http/alert-webhooks';

// The shared webhooks alerts go to: listed and added; admins.
export const GET = withRole('alerts', (request, session) => webhooksResponse(request, session));
export const POST = withRole('alerts', (request, session) => webhooksResponse(request, session));
