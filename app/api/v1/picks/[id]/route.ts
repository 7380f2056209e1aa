import type { RouteContext } from '@/lib/http';
import { pickRoute } from '@/lib/tokens/v1';

// The portal's API v1 for API tokens (docs/api-v1.md): one pick, when it is inside the token's scope.
export const GET = (request: Request, context: RouteContext<{ id: string }>) => context.params.then(({ id }) => pickRoute(id)(request));
