import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** The audit trail's signed checkpoints as the store keeps them (lib/audit/checkpoints.ts makes and checks them). */

type Db = Kysely<Database>;

export interface StoredCheckpoint {
  id: number;
  headSeq: number;
  headHash: string;
  jws: string;
  hash: string;
  at: string;
}

const toCheckpoint = (row: {
  id: number;
  head_seq: number;
  head_hash: string;
  jws: string;
  hash: string;
  at: string;
}): StoredCheckpoint => ({
  id: Number(row.id),
  headSeq: Number(row.head_seq),
  headHash: row.head_hash,
  jws: row.jws,
  hash: row.hash,
  at: row.at,
});

export async function lastCheckpoint(db: Db): Promise<StoredCheckpoint | null> {
  const row = await db.selectFrom('audit_checkpoints').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? toCheckpoint(row) : null;
}

/** The newest entry any checkpoint seals (0: none). */
export async function sealedUpTo(db: Db): Promise<number> {
  const row = await db
    .selectFrom('audit_checkpoints')
    .select((eb) => eb.fn.max('head_seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export async function insertCheckpoint(db: Db, checkpoint: StoredCheckpoint): Promise<void> {
  await db
    .insertInto('audit_checkpoints')
    .values({
      id: checkpoint.id,
      head_seq: checkpoint.headSeq,
      head_hash: checkpoint.headHash,
      jws: checkpoint.jws,
      hash: checkpoint.hash,
      at: checkpoint.at,
    })
    .execute();
}

/** Every checkpoint in order, or the newest `limit` (newest first). */
export async function listCheckpoints(db: Db, limit?: number): Promise<StoredCheckpoint[]> {
  const query = db.selectFrom('audit_checkpoints').selectAll();
  const rows = limit ? await query.orderBy('id', 'desc').limit(limit).execute() : await query.orderBy('id').execute();
  return rows.map(toCheckpoint);
}
