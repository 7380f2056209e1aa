import { liveResponse } from '@/lib/http/health';

/** GET /api/health/live: liveness, the process answers (nothing else is asked); no sign-in. */
export const GET = () => liveResponse();
