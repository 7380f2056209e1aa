import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { Store } from './open';
import { preparingOnce } from './statement-cache';

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
    ? new RateLimiterSQLite({ ...common, storeClient: preparingOnce(store.sqlite!), storeType: 'better-sqlite3' })
    : new RateLimiterPostgres({ ...common, storeClient: store.pool, storeType: 'pool' });
}
