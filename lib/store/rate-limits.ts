import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { Store } from './open';
import { preparingOnce } from './statement-cache';
import { storeWritesFree } from './write-gate';

/**
 * Counters kept in the store by rate-limiter-flexible, so that every instance counts the same failures.
 * The library keeps its rows in `rate_limits`, a table our migration creates with the library's own layout.
 */

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
  blockDuration?: number;
}

export function storeRateLimiter(store: Store, options: LimiterOptions): RateLimiterStoreAbstract {
  const common = { ...options, tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false };
  return store.target.engine === 'sqlite'
    ? new GatedRateLimiterSQLite({ ...common, storeClient: preparingOnce(store.sqlite!), storeType: 'better-sqlite3' })
    : new RateLimiterPostgres({ ...common, storeClient: store.pool, storeType: 'pool' });
}

/** rate-limiter-flexible's hooks for a store (how its own stores write), each one write transaction. */
interface StoreHooks {
  _upsert(...args: unknown[]): Promise<unknown>;
  _delete(...args: unknown[]): Promise<unknown>;
}
const hooks = RateLimiterSQLite.prototype as unknown as StoreHooks;

/**
 * The SQLite limiter with its writes behind the store's write gate (./write-gate.ts): an API v1 request counts its
 * token's rate and quota in the serving thread's connection, which must not stand waiting for a history batch.
 */
class GatedRateLimiterSQLite extends RateLimiterSQLite {
  async _upsert(...args: unknown[]): Promise<unknown> {
    await storeWritesFree();
    return hooks._upsert.apply(this, args);
  }

  async _delete(...args: unknown[]): Promise<unknown> {
    await storeWritesFree();
    return hooks._delete.apply(this, args);
  }
}
