import type { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestPolicy } from './request-policy';

/**
 * What `scripts/portal-server.mjs` (the portal's own HTTP server, docs/adr/0001) hands to the app through
 * globalThis, in one typed place: the header it writes the socket's peer address into (marking the process
 * as served by it), the request context holding each request's abort signal, and the hook through which
 * instrumentation installs the request policy. Under any other server all three are absent.
 */
interface Handoff {
  __portalPeerHeader?: string;
  __portalRequestContext?: AsyncLocalStorage<{ signal: AbortSignal }>;
  __portalRequestPolicyInstalled?: (policy: RequestPolicy) => void;
}

const handoff = globalThis as typeof globalThis & Handoff;

/** The header the server writes the peer address into, or undefined under another server. */
export const peerHeaderFromServer = (): string | undefined => handoff.__portalPeerHeader;

/** The signal of the request being served (aborted when its client leaves), or undefined. */
export const requestContextSignal = (): AbortSignal | undefined => handoff.__portalRequestContext?.getStore()?.signal;

/** Hands the request policy to the server, which waits for it before it listens. */
export const handRequestPolicyToServer = (policy: RequestPolicy): void => handoff.__portalRequestPolicyInstalled?.(policy);
