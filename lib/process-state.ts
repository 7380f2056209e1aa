/**
 * What this process keeps once. Next bundles a module once per layer (pages, route handlers,
 * instrumentation), so a module-level variable would exist once per layer: anything that must be one per
 * process (the store, the upstream gate, the background loops, sign-in limiters) lives here, on globalThis
 * under one name, typed by its key.
 */

export interface ProcessState {
  store?: Promise<import('./store/open').Store>;
  picksGate?: import('./picks-api/gate').UpstreamGate;
  signInLimits?: Promise<import('./auth/sign-in-limits').Limiters>;
  hashing?: import('p-limit').LimitFunction;
  revokedHere?: Map<string, number>;
  confirmedSessions?: Map<string, number>;
  changeFeed?: import('./changes/poller').FeedLoop;
  deliveries?: import('./deliveries/scheduler').DeliveryLoop;
  alerts?: import('./alerts/start').AlertLoop;
  metrics?: import('./metrics').Metrics;
  /** Set on SIGTERM (lib/shutdown.ts): health answers 503, no new walk starts. */
  draining?: boolean;
  /** Exports, coverage reports and delivery runs running in this process. */
  runningWalks?: number;
  /** Audit entries kept while the store was away (lib/audit/outbox.ts). */
  auditOutbox?: {
    entries: import('./store/audit').AuditInput[];
    timer: NodeJS.Timeout | null;
    failures: number;
    flushing: Promise<void> | null;
  };
  /** Delivery runs this process is running (lib/deliveries/kept.ts). */
  runningRuns?: Set<string>;
  /** How to stop each export or coverage report running here when a stop's grace runs out (lib/shutdown.ts). */
  walkCuts?: Set<() => void>;
  /** Set when a stop's grace has run out: work waiting for the store gives up. */
  graceEnded?: boolean;
  /** Each store query's duration and failure, for the metrics (set at start when metrics are on). */
  observeStore?: (ms: number, failed: boolean) => void;
  /** This process's signing key (lib/proof/signer.ts), read from its file once. */
  signingKey?: Promise<import('./proof/keys').SigningKey>;
  /** The key webhook URLs are sealed with in the store (lib/store/at-rest.ts); null: kept as given. */
  atRestKey?: Buffer | null;
  /** "Check a file" running on this instance (lib/proof/check.ts): one at a time. */
  proofCheck?: { busy: boolean };
  /** Whether that key was retired or marked compromised, as the store said last (lib/proof/signer.ts). */
  signingKeyStanding?: { kid: string; at: number; problem: string | null };
  /** The audit trail's checkpoints made by this process (lib/audit/sealing.ts); unset in commands. */
  sealing?: import('./audit/sealing').Sealing;
  /** API tokens (lib/tokens): the shared counters, tokens read in the last seconds, use counted since the last flush. */
  tokenLimits?: Promise<import('./tokens/limits').TokenLimiters>;
  tokenCache?: Map<string, { at: number; token: import('./store/tokens').ApiToken | null }>;
  tokenUsage?: import('./tokens/usage').UsageCounter;
}

const holder = globalThis as typeof globalThis & { __portalProcess?: ProcessState };

/** This process's state, shared by every layer of the bundle. */
export const processState: ProcessState = (holder.__portalProcess ??= {});

/** The value under `key`, made by `create` on first use. */
export function once<K extends keyof ProcessState>(key: K, create: () => NonNullable<ProcessState[K]>): NonNullable<ProcessState[K]> {
  return (processState[key] ??= create()) as NonNullable<ProcessState[K]>;
}

/**
 * A promise kept under `key`, made by `create` on first use; one that fails is forgotten, so the next call
 * tries again (a store that was away, limiters whose store was away).
 */
export function oncePromise<K extends 'store' | 'signInLimits' | 'tokenLimits'>(
  key: K,
  create: () => NonNullable<ProcessState[K]>,
): NonNullable<ProcessState[K]> {
  if (!processState[key]) {
    const creating = create();
    processState[key] = creating;
    creating.catch(() => {
      if (processState[key] === creating) processState[key] = undefined;
    });
  }
  return processState[key] as NonNullable<ProcessState[K]>;
}
