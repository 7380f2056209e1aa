import type { ApiToken } from '../store/tokens';

/** What API v1 (./v1.ts) takes and gives, whichever server received the request (ADR 0013). */

/** A request as the API needs it, whichever server received it. */
export interface V1Request {
  url: URL;
  header(name: string): string | null;
  signal?: AbortSignal;
  address: string | null;
  /** Set only by lib/http/try-v1.ts: the id of the token its signed-in owner tries on /developers (no Authorization then). */
  tried?: string;
  /**
   * Set only by lib/mcp: the token an MCP request was already authenticated and rated with (lib/http/mcp.ts), so a
   * tool's call through API v1 is judged by the same rules without counting the request twice.
   */
  actor?: ApiToken;
}

/** An answer, written by whichever server received the request. */
export interface V1Result {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}
