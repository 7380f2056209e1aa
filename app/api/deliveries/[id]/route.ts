import { deleteResponse, getResponse, patchResponse } from '@/lib/deliveries/api';
import { withRole } from '@/lib/http';

// One delivery: read, change (PATCH, also pause and resume), remove; editors and admins.
const idOf = (request: Request) => decodeURIComponent(new URL(request.url).pathname.split('/').at(-1) ?? '');
export const GET = withRole('deliveries', (request, session) => getResponse(idOf(request), session.user));
export const PATCH = withRole('deliveries', (request, session) => patchResponse(idOf(request), request, session.user));
export const DELETE = withRole('deliveries', (request, session) => deleteResponse(idOf(request), session.user));
