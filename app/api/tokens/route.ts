import { withRole } from '@/lib/http';
import { tokensResponse } from '@/lib/tokens/responses';

// API tokens for the partner's systems (docs/api-v1.md): listed and created; admins and editors (their own).
export const GET = withRole('tokens', (request, session) => tokensResponse(request, session.user));
export const POST = withRole('tokens', (request, session) => tokensResponse(request, session.user));
