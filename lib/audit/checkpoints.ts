import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { takeLock } from '../store/locks';
import { auditHead } from '../store/audit';
import { insertCheckpoint, lastCheckpoint, sealedUpTo, type StoredCheckpoint } from '../store/checkpoints';
import type { Database } from '../store/schema';
import { canonicalBytes } from '../proof/canonical';
import { keepSealedRows, SEALED_TABLE_NAMES, sealsOfTables, type SealedTable, type TableSeal } from '../store/sealed-tables';

/**
 * The sealed audit trail. A checkpoint signs the seq and hash of the newest entry, how many entries it seals
 * since the one before, the previous checkpoint's hash and the time: a database writer, who cannot sign, can no
 * longer rewrite, cut or re-anchor what a checkpoint covers without it showing (lib/audit/verify-sealed.ts).
 * One is made every AUDIT_CHECKPOINT_EVERY entries and at least every AUDIT_CHECKPOINT_MINUTES while entries
 * are unsealed; pruning makes one of kind `anchor` sealing the new start. Each is kept in the store and appended
 * to a file outside it (AUDIT_CHECKPOINT_FILE), whence an operator copies it elsewhere.
 */

type Db = Kysely<Database>;
export const CHECKPOINT_TYPE = 'picks-audit-checkpoint+json';

export interface CheckpointPayload {
  type: 'picks-audit-checkpoint';
  id: number;
  /** `seal`: the trail up to headSeq; `anchor`: pruning removed every entry up to headSeq, the trail starts after it. */
  kind: 'seal' | 'anchor';
  headSeq: number;
  headHash: string;
  /** Entries sealed since the previous checkpoint (0 for an anchor). */
  entries: number;
  /** sha256 of the previous checkpoint's payload; null for the first. */
  previous: string | null;
  at: string;
  /**
   * The digest of each table that decides who may act and where data goes, as it stood (lib/store/sealed-tables.ts);
   * absent in checkpoints made before the portal sealed them.
   */
  tables?: Record<SealedTable, string>;
}

/** Signs a checkpoint's payload; `trx` is the transaction it is made in (on SQLite, the one connection: read through it). */
export type Signer = (payload: Uint8Array, trx: Db) => Promise<string>;

/** Makes and stores checkpoint `kind` over `head`, in the caller's transaction (which holds the checkpoints lock). */
async function makeCheckpoint(trx: Db, kind: CheckpointPayload['kind'], head: { seq: number; hash: string }, sign: Signer, now: Date) {
  const last = await lastCheckpoint(trx);
  const sealed = await sealedUpTo(trx);
  const seals = await sealsOfTables(trx);
  const payload: CheckpointPayload = {
    type: 'picks-audit-checkpoint',
    id: (last?.id ?? 0) + 1,
    kind,
    headSeq: head.seq,
    headHash: head.hash,
    entries: kind === 'seal' ? Math.max(0, head.seq - sealed) : 0,
    previous: last?.hash ?? null,
    at: now.toISOString(),
    tables: tableDigests(seals),
  };
  const bytes = canonicalBytes(payload);
  const checkpoint: StoredCheckpoint = {
    id: payload.id,
    headSeq: head.seq,
    headHash: head.hash,
    jws: await sign(bytes, trx),
    hash: createHash('sha256').update(bytes).digest('hex'),
    at: payload.at,
  };
  await insertCheckpoint(trx, checkpoint);
  await keepSealedRows(trx, checkpoint.id, seals);
  return checkpoint;
}

const tableDigests = (seals: Record<SealedTable, TableSeal>) =>
  Object.fromEntries(SEALED_TABLE_NAMES.map((table) => [table, seals[table].digest])) as Record<SealedTable, string>;

/** A checkpoint's payload as its JWS carries it (read, not verified: verify-sealed.ts verifies). */
export const payloadOf = (jws: string): CheckpointPayload =>
  JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as CheckpointPayload;

/** Whether a sealed table changed since the newest checkpoint (or it sealed none). */
async function tablesMoved(trx: Db, last: StoredCheckpoint | null): Promise<boolean> {
  if (!last) return false;
  const sealed = payloadOf(last.jws).tables;
  if (!sealed) return true;
  const now = tableDigests(await sealsOfTables(trx));
  return SEALED_TABLE_NAMES.some((table) => sealed[table] !== now[table]);
}

export interface SealRules {
  every: number;
  minutes: number;
  /** Seal whatever is unsealed now (a stop, a command). */
  force?: boolean;
  now?: Date;
}

/** A checkpoint when one is due (entries unsealed, and enough of them or for long enough); null otherwise. */
export async function sealAudit(db: Db, sign: Signer, rules: SealRules): Promise<StoredCheckpoint | null> {
  const now = rules.now ?? new Date();
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'checkpoints');
    const head = await auditHead(trx);
    const sealed = await sealedUpTo(trx);
    // Nothing new in the trail: sealed again only when who may act or where data goes changed since (a change the
    // trail records is sealed with its entry; this catches what changed beside it, and every change at a backup).
    if (head.seq <= sealed)
      return (await tablesMoved(trx, await lastCheckpoint(trx))) ? makeCheckpoint(trx, 'seal', head, sign, now) : null;
    // Stale: the oldest unsealed entry has waited the time allowed.
    const oldest = await trx.selectFrom('audit_log').select('at').where('seq', '>', sealed).orderBy('seq').limit(1).executeTakeFirst();
    const stale = oldest !== undefined && now.getTime() - Date.parse(oldest.at) >= rules.minutes * 60_000;
    if (!rules.force && head.seq - sealed < rules.every && !stale && !(await tablesMoved(trx, await lastCheckpoint(trx)))) return null;
    return makeCheckpoint(trx, 'seal', head, sign, now);
  });
}

/** For pruneAudit: the new start sealed, in the pruning's own transaction; what it made is pushed to `made` (for the file, after commit). */
export function anchorSealer(sign: Signer, made: StoredCheckpoint[], now = new Date()) {
  return async (trx: Db, cut: { seq: number; hash: string }) => {
    await takeLock(trx, 'checkpoints');
    made.push(await makeCheckpoint(trx, 'anchor', cut, sign, now));
  };
}

/** Appends checkpoints to the file kept outside the store: one JSON line each, the JWS holding everything. */
export async function keepOutside(file: string, checkpoints: StoredCheckpoint[]): Promise<void> {
  if (checkpoints.length === 0) return;
  await appendFile(file, checkpoints.map(checkpointLine).join(''), { mode: 0o600 });
}

/** The file checkpoints are appended to: AUDIT_CHECKPOINT_FILE, or one in the data directory. */
export function checkpointFile(settings: { AUDIT_CHECKPOINT_FILE?: string; PORTAL_DATA_DIR: string }): string {
  return settings.AUDIT_CHECKPOINT_FILE || path.join(settings.PORTAL_DATA_DIR, 'audit-checkpoints.jsonl');
}

/** The JWS of every checkpoint in a file's text: JSON lines (as appended), or the JSON `{ "checkpoints": [...] }`. */
export function checkpointsIn(text: string): string[] {
  if (text.trimStart().startsWith('{"checkpoints"'))
    return (JSON.parse(text) as { checkpoints: { jws: string }[] }).checkpoints.map((c) => c.jws);
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => (JSON.parse(line) as { jws: string }).jws);
}

/** One checkpoint as a line of the file kept outside (and of GET /api/audit/checkpoints). */
export const checkpointLine = (c: StoredCheckpoint) =>
  `${JSON.stringify({ id: c.id, headSeq: c.headSeq, headHash: c.headHash, at: c.at, hash: c.hash, jws: c.jws })}\n`;
