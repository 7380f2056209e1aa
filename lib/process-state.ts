import type { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/**
 * What this process keeps once, in one holder on globalThis. Next bundles a module once per layer (pages,
 * route handlers, instrumentation), so a module-level variable would exist once per layer: anything that must
 * be one per process (the store, the upstream gate, the jobs, sign-in limiters) lives in a slot here.
 *
 * This module imports no module of the portal: each module declares the slot it owns, with its type, where
 * that type lives (`const gate = processSlot<UpstreamGate>('picksGate')`). The holder's other half is what
 * scripts/portal-server.mjs (the portal's own HTTP server, docs/adr/0001) and the app hand each other.
 */

/** What the server keeps for each request it serves: the app adds who asked and which upstream requests it caused. */
export interface RequestContext {
  signal: AbortSignal;
  /** The portal's id of this request: the X-Request-Id header, error bodies and log lines carry it. */
  requestId: string;
  user: { role: string; email: string } | null;
  upstream: string[];
  /** The answer is a stream held open (API v1's events): timed apart from requests answered at once. */
  streamed?: boolean;
}

/** A request the server finished (or that was cut): it is counted and logged through `requests.finished`. */
export interface FinishedRequest {
  pathname: string;
  method: string;
  status: number;
  seconds: number;
  cut: boolean;
  context: RequestContext;
}

type NodeHandler<R> = (req: IncomingMessage, res: ServerResponse) => R;

/** Written by scripts/portal-server.mjs (its half) and by lib/start/portal.ts (the app's half). Under another server all are absent. */
export interface ServerHandoff {
  /** The header the server writes the socket's peer address into. */
  peerHeader?: string;
  /** Each request's context (its abort signal and id). */
  requestContext?: AsyncLocalStorage<RequestContext>;
  /** The process's logger, made by the server before Next started. */
  log?: Logger;
  /** How the app hands the request policy over; the server waits for it before it listens. */
  policyInstalled?: (policy: NodeHandler<boolean>) => void;
  /** The portal's API v1, answered before Next (ADR 0013). */
  v1?: NodeHandler<Promise<void>>;
  /** Requests counted and logged, /metrics rendered and guarded. */
  requests?: {
    finished: (request: FinishedRequest) => void;
    render: () => Promise<{ contentType: string; body: string }>;
    token: string | null;
    listen: string | null;
  };
  /** Requests being answered now. */
  inFlight?: () => number;
  /** The clean stop the server runs on SIGTERM. */
  shutdown?: () => Promise<void>;
}

const holder = ((globalThis as typeof globalThis & { __portal?: { server?: ServerHandoff; slots?: Record<string, unknown> } }).__portal ??=
  {});
/** The server's half of the holder. */
export const server: ServerHandoff = (holder.server ??= {});
const slots: Record<string, unknown> = (holder.slots ??= {});

export interface Slot<T> {
  get(): T | undefined;
  set(value: T | undefined): void;
  /** The value, made by `create` on first use. */
  once(create: () => T): T;
}

/** The slot `name` of this process, typed by the module that owns it. */
export function processSlot<T>(name: string): Slot<T> {
  return {
    get: () => slots[name] as T | undefined,
    set: (value) => void (slots[name] = value),
    once: (create) => (slots[name] ??= create()) as T,
  };
}

/**
 * A slot holding a promise: one that fails is forgotten, so the next `once` tries again (a store that was
 * away, limiters whose store was away).
 */
export function promiseSlot<T>(name: string): Slot<Promise<T>> {
  const slot = processSlot<Promise<T>>(name);
  return {
    ...slot,
    once(create) {
      const kept = slot.get();
      if (kept) return kept;
      const creating = create();
      slot.set(creating);
      creating.catch(() => {
        if (slot.get() === creating) slot.set(undefined);
      });
      return creating;
    },
  };
}

/** The header the server writes the peer address into, or undefined under another server. */
export const peerHeaderFromServer = (): string | undefined => server.peerHeader;

/** The context of the request being served, or undefined (background work, another server). */
export const requestContext = (): RequestContext | undefined => server.requestContext?.getStore();

/** The signal of the request being served (aborted when its client leaves), or undefined. */
export const requestContextSignal = (): AbortSignal | undefined => requestContext()?.signal;
