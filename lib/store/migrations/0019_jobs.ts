import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // The job registry (lib/jobs): each instance's jobs, their last run and next, shown on /health.
    await db.schema
      .createTable('job_runs')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('instance', 'text', (c) => c.notNull())
      .addColumn('every_ms', 'bigint', (c) => c.notNull())
      .addColumn('lease', 'text', (c) => c.notNull())
      .addColumn('last_started_ms', 'bigint')
      .addColumn('last_ms', 'bigint')
      .addColumn('last_outcome', 'text')
      .addColumn('last_problem', 'text')
      .addColumn('next_ms', 'bigint')
      .addColumn('runs', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('job_runs_pk', ['name', 'instance'])
      .execute();
    // Jobs that one instance at a time runs: who holds each, until when.
    await db.schema
      .createTable('job_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('until_ms', 'bigint', (c) => c.notNull())
      .execute();
  },
};
