import { healthResponse } from '@/lib/health/responses';

/** GET /api/health: for load balancers; no sign-in, nothing private. */
export const GET = () => healthResponse();
