import { serveMcp } from '@/lib/http/mcp';

// The MCP server for API tokens (docs/mcp.md): JSON-RPC by POST; GET and DELETE are 405 (it keeps no sessions).
export const POST = serveMcp;
export const GET = serveMcp;
export const DELETE = serveMcp;
