import { healthResponse } from '@/lib/http/health';

/** GET /api/health: for load balancers; no sign-in, nothing private. */
export const GET = () => healthResponse();
