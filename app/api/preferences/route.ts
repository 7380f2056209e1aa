import { withRole } from '@/lib/http/index';
import { preferencesResponse } from '@/lib/preferences/server';

// The signed-in person's time zone, theme and density: read (and written into this browser's cookies), or changed.
export const GET = withRole('browse', (request, session) => preferencesResponse(request, session));
export const PUT = withRole('browse', (request, session) => preferencesResponse(request, session));
