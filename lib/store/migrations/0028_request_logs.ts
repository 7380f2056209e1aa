import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// What was sent and answered: each consumer webhook attempt keeps the request it sent (headers, body up to 64 KB) and
// the receiver's answer (headers, body up to 4 KB), with their sizes; each API token's requests are logged (time,
// method, path with query, status, records, duration, request id) for its page (lib/tokens/request-log.ts).
export const migration: Migration = {
  async up(db: AnyDb) {
    for (const column of ['request_headers', 'request_body', 'response_headers', 'response_body'])
      await db.schema.alterTable('token_webhook_attempts').addColumn(column, 'text').execute();
    for (const column of ['request_bytes', 'response_bytes'])
      await db.schema.alterTable('token_webhook_attempts').addColumn(column, 'bigint').execute();
    await db.schema
      .createTable('token_requests')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('records', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('token_requests_at').on('token_requests').columns(['token_id', 'at_ms']).execute();
    await db.schema.createIndex('token_requests_when').on('token_requests').columns(['at_ms']).execute();
  },
};
