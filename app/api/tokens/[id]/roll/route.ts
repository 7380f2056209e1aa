import { withRole } from '@/lib/http/index';
import { rollResponse } from '@/lib/http/token-roll';

// A new secret for the token, the old one working for an overlap (docs/api-v1.md, "Tokens").
export const POST = withRole<{ id: string }>('tokens', (request, session, { id }) => rollResponse(request, session.user, id));
