import { readyResponse } from '@/lib/http/health';

/** GET /api/health/ready: readiness, the store answers with its migrations applied and the instance is not draining; no sign-in. */
export const GET = () => readyResponse();
