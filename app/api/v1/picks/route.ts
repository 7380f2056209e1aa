import { listRoute } from '@/lib/tokens/v1';

// The portal's API v1 for API tokens (docs/api-v1.md): picks inside the token's scope.
export const GET = listRoute('picks');
