import { healthResponse } from '@/lib/health';

/** GET /api/health: for load balancers; no sign-in, nothing private (lib/health.ts). */
export const GET = () => healthResponse();
