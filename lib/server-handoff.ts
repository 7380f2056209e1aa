import type { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestPolicy } from './request-policy';

/**
 * What `scripts/portal-server.mjs` (the portal's own HTTP server, docs/adr/0001) hands to the app through
 * globalThis, in one typed place: the header it writes the socket's peer address into (marking the process
 * as served by it), the request context holding each request's abort signal and id, the hook through which
 * instrumentation installs the request policy, and the API v1 it answers before Next. Under any other server all are absent.
 */
/** What the server keeps for each request it serves: the app adds who asked and which upstream requests it caused. */
export interface RequestContext {
  signal: AbortSignal;
  /** The portal's id of this request: the X-Request-Id header, error bodies and log lines carry it. */
  requestId: string;
  user: { role: string; email: string } | null;
  upstream: string[];
}

interface Handoff {
  __portalV1?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  __portalPeerHeader?: string;
  __portalRequestContext?: AsyncLocalStorage<RequestContext>;
  __portalRequestPolicyInstalled?: (policy: RequestPolicy) => void;
}

const handoff = globalThis as typeof globalThis & Handoff;

/** The header the server writes the peer address into, or undefined under another server. */
export const peerHeaderFromServer = (): string | undefined => handoff.__portalPeerHeader;

/** The signal of the request being served (aborted when its client leaves), or undefined. */
export const requestContextSignal = (): AbortSignal | undefined => handoff.__portalRequestContext?.getStore()?.signal;

/** The context of the request being served, or undefined (background work, another server). */
export const requestContext = (): RequestContext | undefined => handoff.__portalRequestContext?.getStore();

/** Hands the request policy to the server, which waits for it before it listens. */
export const handRequestPolicyToServer = (policy: RequestPolicy): void => handoff.__portalRequestPolicyInstalled?.(policy);

/** Hands the portal's API v1 to the server, which answers /api/v1 with it before Next (ADR 0013). */
export const handV1ToServer = (serve: NonNullable<Handoff['__portalV1']>): void => {
  handoff.__portalV1 = serve;
};
