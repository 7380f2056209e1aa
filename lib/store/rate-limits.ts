import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { Store } from './open';

/**
 * Counters kept in the store by rate-limiter-flexible, so that every instance counts the same failures.
 * The library keeps its own table (rate_limits), created on first use on either engine.
 */

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
  blockDuration?: number;
}

export function storeRateLimiter(store: Store, options: LimiterOptions): Promise<RateLimiterStoreAbstract> {
  const common = { ...options, tableName: 'rate_limits', clearExpiredByTimeout: false };
  return new Promise((resolve, reject) => {
    const limiter: RateLimiterStoreAbstract =
      store.target.engine === 'sqlite'
        ? new RateLimiterSQLite({ ...common, storeClient: store.sqlite, storeType: 'better-sqlite3' }, (error?: Error) =>
            error ? reject(error) : resolve(limiter),
          )
        : new RateLimiterPostgres({ ...common, storeClient: store.pool, storeType: 'pool' }, (error?: Error) =>
            error ? reject(error) : resolve(limiter),
          );
  });
}
