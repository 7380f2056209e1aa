import { meRoute } from '@/lib/tokens/v1';

// The portal's API v1 for API tokens (docs/api-v1.md): the token's scope, in the shape of the upstream's /me.
export const GET = meRoute();
