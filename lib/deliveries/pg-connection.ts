import { SSL_MODES, type PgDestination, type SslMode } from './pg-table';
import { mayBePlain, type PrivateTargets } from './targets';

/**
 * A PostgreSQL connection string as an editor pastes it — `postgres://user:password@host:5432/database?sslmode=…` —
 * read into where it points (stored in the clear) and its password (sealed, bound to host, port, database and
 * user: ./secrets.ts). Only `sslmode` may follow: verify-full (the default), require, or disable (loopback and
 * private servers only, as with plain-http webhooks).
 */

export interface ReadConnection {
  where: Omit<PgDestination, 'schema' | 'table'>;
  password: string | null;
}

export function readConnection(text: string, allowPrivate: PrivateTargets): ReadConnection | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'must be a connection string like postgres://user:password@host:5432/database' };
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return { problem: 'must start with postgres:// or postgresql://' };
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const user = decodeURIComponent(url.username);
  const missing = [!url.hostname && 'a host', !user && 'a user', !database && 'a database'].filter(Boolean);
  if (missing.length > 0) return { problem: `must name ${missing.join(', ')} (postgres://user:password@host:5432/database)` };
  if (database.includes('/')) return { problem: 'must name one database after the host (no further /)' };
  const unknown = [...url.searchParams.keys()].filter((key) => key !== 'sslmode');
  if (unknown.length > 0) return { problem: `takes only sslmode after ?, not ${unknown.join(', ')}` };
  const sslmode = url.searchParams.get('sslmode') ?? 'verify-full';
  if (!(SSL_MODES as readonly string[]).includes(sslmode)) return { problem: `sslmode must be ${SSL_MODES.join(', ')}` };
  if (sslmode === 'disable' && !mayBePlain(url.hostname.replace(/^\[|\]$/g, ''), allowPrivate))
    return { problem: 'sslmode=disable would send the password in the clear: use verify-full or require' };
  return {
    where: {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : 5432,
      database,
      user,
      ssl: sslmode as SslMode,
    },
    password: url.password ? decodeURIComponent(url.password) : null,
  };
}

/** A stored destination as the connection string the form takes, without its password (kept sealed apart). */
export function connectionOf(where: ReadConnection['where']): string {
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  return `postgres://${encodeURIComponent(where.user)}@${host}:${where.port}/${encodeURIComponent(where.database)}?sslmode=${where.ssl}`;
}

/**
 * A stored destination as the form gives it: a PostgreSQL one as its connection string without the password, which
 * stays sealed and is kept while the server, database, user, sslmode, schema and table stay (a pause, a new name).
 */
export const destinationAsGiven = (destination: Record<string, unknown> & { type: string }) =>
  destination.type === 'postgres'
    ? {
        type: 'postgres',
        connection: connectionOf(destination as unknown as ReadConnection['where']),
        schema: destination.schema,
        table: destination.table,
      }
    : destination;
