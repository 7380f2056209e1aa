import { withRole } from '@/lib/http/index';
import { cadencesResponse } from '@/lib/http/feed-health';

// The refresh cadence agreed with the provider per sport: read by anyone signed in, set by admins.
export const GET = withRole('browse', (request, session) => cadencesResponse(request, session));
export const PUT = withRole('poll', (request, session) => cadencesResponse(request, session));
