import { withRole } from '@/lib/http/index';
import { webhookResponse } from '@/lib/http/alert-webhooks';

// One shared webhook: read, changed, removed; admins.
type Params = { id: string };
export const GET = withRole<Params>('alerts', (request, session, { id }) => webhookResponse(request, session, id));
export const PATCH = withRole<Params>('alerts', (request, session, { id }) => webhookResponse(request, session, id));
export const DELETE = withRole<Params>('alerts', (request, session, { id }) => webhookResponse(request, session, id));
