import { deleteResponse, getResponse, patchResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// One delivery: read, change (PATCH, also pause and resume), remove; editors and admins.
type Params = { id: string };
export const GET = withRole<Params>('deliveries', (_request, session, { id }) => getResponse(id, session.user));
export const PATCH = withRole<Params>('deliveries', (request, session, { id }) => patchResponse(id, request, session.user));
export const DELETE = withRole<Params>('deliveries', (_request, session, { id }) => deleteResponse(id, session.user));
