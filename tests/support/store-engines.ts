import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { StoreTarget } from '../../lib/config/store';

/**
 * The engines every store test runs on: the embedded database, and the real PostgreSQL started by
 * tests/support/pg-global-setup.ts (absent only off CI, where that setup said so loudly).
 */

export interface Engine {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty store location. */
  fresh(): Promise<StoreTarget>;
}

export function storeEngines(): Engine[] {
  const engines: Engine[] = [
    {
      name: 'sqlite',
      async fresh() {
        const dir = await mkdtemp(path.join(tmpdir(), 'store-'));
        const file = path.join(dir, 'portal.sqlite');
        return { engine: 'sqlite', file, label: `the embedded database ${file}` };
      },
    },
  ];
  const admin = inject('postgresUrl');
  if (admin) {
    let counter = 0;
    engines.push({
      name: 'postgres',
      async fresh() {
        const name = `store_${process.pid}_${Date.now().toString(36)}_${(counter += 1)}`;
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).finally(() => client.end());
        const url = new URL(admin);
        url.pathname = `/${name}`;
        return { engine: 'postgres', url: url.toString(), label: `PostgreSQL ${name}` };
      },
    });
  }
  return engines;
}

/** A store location as environment variables, for code that opens the process's store (getStore). */
export function storeEnv(target: StoreTarget): Record<string, string> {
  return target.engine === 'postgres'
    ? { DATABASE_URL: target.url, PORTAL_DATA_DIR: path.join(tmpdir(), 'unused'), PORTAL_USERS_FILE: path.join(tmpdir(), 'none.json') }
    : {
        DATABASE_URL: '',
        PORTAL_DATA_DIR: path.dirname(target.file),
        PORTAL_USERS_FILE: path.join(path.dirname(target.file), 'users.json'),
      };
}

/** The settings of a portal process on an embedded store in `dir` (an upstream that is never asked), for code that reads them. */
export const embeddedPortalEnv = (dir: string): Record<string, string> => ({
  PICKS_API_BASE_URL: 'https://api.example.com',
  PICKS_API_KEY: 'k-123',
  DATABASE_URL: '',
  PORTAL_DATA_DIR: dir,
  PORTAL_USERS_FILE: path.join(dir, 'none.json'),
});
