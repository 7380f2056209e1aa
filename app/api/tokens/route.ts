import { withRole } from '@/lib/http/index';
import { tokensResponse } from '@/lib/http/tokens';

// API tokens for the partner's systems (docs/api-v1.md): listed and created; admins and editors (their own).
export const GET = withRole('tokens', (request, session) => tokensResponse(request, session.user));
export const POST = withRole('tokens', (request, session) => tokensResponse(request, session.user));
