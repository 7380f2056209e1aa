import { healthRoute } from '@/lib/tokens/v1';

// The portal's API v1 for API tokens (docs/api-v1.md): the gateway's availability, no private data.
export const GET = healthRoute();
