import { keysResponse } from '@/lib/http/proof';

/** GET /api/proof/keys: the JWK Set of every key the portal has signed with (public keys, so no sign-in). */
export const GET = () => keysResponse();
