import { createHash } from 'node:crypto';
import { EXPORT_ACTIONS } from '../vocabulary/audit';
import { sql, type Insertable, type Kysely, type SelectQueryBuilder, type Selectable, type SqlBool } from 'kysely';
import { takeLock } from './locks';
import { readMeta, writeMeta } from './meta';
import type { FileProof } from '../vocabulary/proof';
import type { AuditLogTable, Database } from './schema';

/**
 * The audit trail: append-only, each entry holding the hash of the one before (a hash chain), so that an
 * entry changed or removed in the middle is found by `verifyAudit`. Appends are serialised across
 * processes and instances by the `audit` lock row. Pruning keeps the chain checkable: the hash of the
 * last pruned entry is kept as the anchor the remaining chain starts from.
 */

type Db = Kysely<Database>;

export type AuditOutcome = 'complete' | 'failed' | 'cancelled';

/** An entry as code reads it: the row (AuditLogTable) with its JSON parsed and its names in camelCase. */
export type AuditEntry = Pick<
  AuditLogTable,
  'seq' | 'at' | 'actor' | 'role' | 'action' | 'target' | 'records' | 'bytes' | 'sha256' | 'address' | 'licence' | 'hash'
> & {
  filters: Record<string, string> | null;
  outcome: AuditOutcome;
  errorCode: string | null;
  durationMs: number | null;
  requestIds: string[];
  /** What the walk saw while the upstream moved; null when nothing did, or no walk was made. */
  walk: WalkSummary | null;
  /** An export's or run's proof: its record-id digest, resolved filters, data as of, licence attestation (lib/proof). */
  proof: FileProof | null;
  prevHash: string;
};

/** A walk's report as the audit trail keeps it (lib/picks-api/settle.ts). */
export interface WalkSummary {
  passes: number;
  duplicatesDropped: number;
  addedByLaterPasses: number;
  settled: boolean;
  signals: string[];
}

export type AuditInput = Omit<AuditEntry, 'seq' | 'at' | 'prevHash' | 'hash' | 'walk' | 'proof'> & {
  at?: string;
  walk?: WalkSummary | null;
  proof?: FileProof | null;
};

/**
 * The `walk` column holds the walk's report and the file's proof in one JSON object: releases from before the
 * proof hash that column as they read it, so they still verify entries written by later ones (rolling upgrades).
 */
function walkColumn(entry: Pick<AuditEntry, 'walk' | 'proof'>): Record<string, unknown> | null {
  if (!entry.walk && !entry.proof) return null;
  return { ...entry.walk, ...(entry.proof ? { proof: entry.proof } : {}) };
}

export const GENESIS = '0'.repeat(64);
const ANCHOR = 'audit-anchor';

/** The hash of one entry: its fields in a fixed order, after the hash of the entry before. */
export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const fields = [
    entry.seq,
    entry.at,
    entry.actor,
    entry.role,
    entry.action,
    entry.target,
    entry.filters,
    entry.outcome,
    entry.errorCode,
    entry.records,
    entry.bytes,
    entry.sha256,
    entry.durationMs,
    entry.requestIds,
    entry.address,
    entry.licence,
    // Only entries that have one hash it: entries from before it existed keep their hashes.
    ...(entry.walk || entry.proof ? [walkColumn(entry)] : []),
  ];
  return createHash('sha256')
    .update(`${entry.prevHash}\n${JSON.stringify(fields)}`)
    .digest('hex');
}

export function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: row.actor,
    role: row.role,
    action: row.action,
    target: row.target,
    filters: row.filters === null ? null : (JSON.parse(row.filters) as Record<string, string>),
    outcome: row.outcome as AuditOutcome,
    errorCode: row.error_code,
    records: row.records === null ? null : Number(row.records),
    bytes: row.bytes === null ? null : Number(row.bytes),
    sha256: row.sha256,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    requestIds: JSON.parse(row.request_ids) as string[],
    address: row.address,
    licence: row.licence,
    ...splitWalkColumn(row.walk ?? null),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function splitWalkColumn(text: string | null): Pick<AuditEntry, 'walk' | 'proof'> {
  if (!text) return { walk: null, proof: null };
  const { proof, ...walk } = JSON.parse(text) as WalkSummary & { proof?: FileProof };
  return { walk: Object.keys(walk).length ? walk : null, proof: proof ?? null };
}

/** An entry as the table holds it (the inverse of toEntry). */
export function toRow(entry: AuditEntry): Insertable<AuditLogTable> {
  return {
    seq: entry.seq,
    at: entry.at,
    actor: entry.actor,
    role: entry.role,
    action: entry.action,
    target: entry.target,
    filters: entry.filters === null ? null : JSON.stringify(entry.filters),
    outcome: entry.outcome,
    error_code: entry.errorCode,
    records: entry.records,
    bytes: entry.bytes,
    sha256: entry.sha256,
    duration_ms: entry.durationMs,
    request_ids: JSON.stringify(entry.requestIds),
    address: entry.address,
    licence: entry.licence,
    walk: entry.walk || entry.proof ? JSON.stringify(walkColumn(entry)) : null,
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}

/** Where the chain starts: the last pruned entry (or the genesis, seq 0). */
export async function anchor(db: Db): Promise<{ seq: number; hash: string }> {
  const stored = await readMeta(db, ANCHOR);
  return stored ? (JSON.parse(stored) as { seq: number; hash: string }) : { seq: 0, hash: GENESIS };
}

export async function appendAudit(db: Db, input: AuditInput): Promise<AuditEntry> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'audit');
    const last = await trx.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    const before = last ? { seq: Number(last.seq), hash: last.hash } : await anchor(trx);
    const partial = {
      ...input,
      walk: input.walk ?? null,
      proof: input.proof ?? null,
      at: input.at ?? new Date().toISOString(),
      seq: before.seq + 1,
      prevHash: before.hash,
    };
    const entry: AuditEntry = { ...partial, hash: entryHash(partial) };
    await trx.insertInto('audit_log').values(toRow(entry)).execute();
    return entry;
  });
}

export interface AuditQuery {
  /** Only the entries of files that left the portal (EXPORT_ACTIONS). */
  exportsOnly?: boolean;
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  /** Words found anywhere in the actor, the action or the target (case folded). */
  words?: string;
}

/** The entries a query selects (every filter optional). */
function matching(db: Db, query: AuditQuery): SelectQueryBuilder<Database, 'audit_log', Selectable<AuditLogTable>> {
  let select = db.selectFrom('audit_log').selectAll();
  if (query.exportsOnly) select = select.where('action', 'in', [...EXPORT_ACTIONS]);
  if (query.from) select = select.where('at', '>=', query.from);
  if (query.to) select = select.where('at', '<', query.to);
  if (query.actor) select = select.where('actor', '=', query.actor);
  if (query.action) select = select.where('action', '=', query.action);
  if (query.outcome) select = select.where('outcome', '=', query.outcome);
  if (query.words) {
    const like = `%${query.words.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    select = select.where((eb) =>
      eb.or(
        (['actor', 'action', 'target'] as const).map(
          (column) => sql<SqlBool>`lower(coalesce(${sql.ref(column)}, '')) like ${like} escape '\\'`,
        ),
      ),
    );
  }
  return select;
}

/** Entries in order, a batch at a time (keyset pagination): never the whole trail in memory. */
export async function* readAudit(db: Db, query: AuditQuery = {}, batch = 1_000): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const rows = await matching(db, query).where('seq', '>', after).orderBy('seq').limit(batch).execute();
    for (const row of rows) yield toEntry(row);
    if (rows.length < batch) return;
    after = Number(rows.at(-1)!.seq);
  }
}

/** The newest `limit` entries matching, newest first (the admin page). */
export async function latestAudit(db: Db, query: AuditQuery, limit: number): Promise<AuditEntry[]> {
  return (await matching(db, query).orderBy('seq', 'desc').limit(limit).execute()).map(toEntry);
}

export async function findAuditEntry(db: Db, seq: number): Promise<AuditEntry | undefined> {
  const row = await db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirst();
  return row && toEntry(row);
}

export type AuditVerdict = { ok: true; entries: number; head: string } | { ok: false; seq: number; problem: string };

/** Walks the chain from its anchor; names the first entry that does not fit. */
export async function verifyAudit(db: Db): Promise<AuditVerdict> {
  const start = await anchor(db);
  let expected = start;
  let entries = 0;
  for await (const entry of readAudit(db)) {
    if (entry.seq !== expected.seq + 1)
      return { ok: false, seq: entry.seq, problem: `entries ${expected.seq + 1}–${entry.seq - 1} before it are missing` };
    if (entry.prevHash !== expected.hash) return { ok: false, seq: entry.seq, problem: 'it does not follow the entry before it' };
    if (entryHash(entry) !== entry.hash) return { ok: false, seq: entry.seq, problem: 'its content was changed' };
    expected = { seq: entry.seq, hash: entry.hash };
    entries += 1;
  }
  return { ok: true, entries, head: expected.hash };
}

/** The newest entry (or the anchor when the trail is empty). */
export async function auditHead(db: Db): Promise<{ seq: number; hash: string }> {
  const last = await db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return last ? { seq: Number(last.seq), hash: last.hash } : anchor(db);
}

/**
 * Removes entries older than `before` (ISO), keeping the hash of the last one removed as the anchor;
 * `sealCut` runs in the same transaction, so the new start is sealed by a signed checkpoint (lib/audit/checkpoints.ts).
 */
export async function pruneAudit(
  db: Db,
  before: string,
  sealCut?: (trx: Db, cut: { seq: number; hash: string }) => Promise<void>,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'audit');
    // The cut is a prefix of the chain: up to the last entry older than `before` that has no newer one before it.
    const firstKept = await trx.selectFrom('audit_log').select('seq').where('at', '>=', before).orderBy('seq').limit(1).executeTakeFirst();
    let cut = trx.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1);
    if (firstKept) cut = cut.where('seq', '<', Number(firstKept.seq));
    const last = await cut.executeTakeFirst();
    if (!last) return 0;
    const removed = await trx.deleteFrom('audit_log').where('seq', '<=', Number(last.seq)).executeTakeFirst();
    await writeMeta(trx, ANCHOR, JSON.stringify({ seq: Number(last.seq), hash: last.hash, at: new Date().toISOString() }));
    await sealCut?.(trx, { seq: Number(last.seq), hash: last.hash });
    return Number(removed.numDeletedRows);
  });
}
