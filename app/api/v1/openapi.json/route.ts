import { serveV1OnNext } from '@/lib/api-v1/http';

// The portal's API v1 for API tokens (docs/api-v1.md), when the portal runs under a server other than its own (ADR 0013).
export const GET = serveV1OnNext;
