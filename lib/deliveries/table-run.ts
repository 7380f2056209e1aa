import 'server-only';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Kysely } from 'kysely';
import { MANIFEST_TYPE, MANIFEST_VERSION } from '../audit/manifest';
import { AppError } from '../errors';
import type { Keeping } from '../history/keep';
import { walkSummary } from '../picks-api';
import { licenceOrNull } from '../picks-api/portal';
import type { FileProof } from '../proof/attest';
import { finishProof } from '../proof/file-proof';
import { signDocument } from '../proof/signer';
import type { WalkSummary } from '../store/audit';
import { readFeed } from '../store/change-feed';
import type { Delivery } from '../store/deliveries';
import { headsMovedAfter, lastHistoryWrite, type MovedHead } from '../store/history-writes';
import type { Database } from '../store/schema';
import { versionOf } from '../vocabulary/version';
import { runFilters } from './input';
import { copyLine } from './pg-columns';
import { connectTo, describeTable, lastSync, syncInTransaction, type PgDestination, type SyncCounts, type TableWriter } from './pg-table';
import { produce } from './produce';
import type { RunEnd } from './run-end';

/**
 * One run of a table delivery (./pg-table.ts writes it). The table's own sync log says what it is in step with:
 * with nothing there for this delivery (a first run, a table made afresh), other filters than last time, or a
 * store that does not reach that far, the run loads the whole filtered set, walked from the upstream as an export
 * is, and marks `_deleted` every row no longer in it. Otherwise it writes the records whose newest version the
 * record history took in after the last run's write (polls of the change feed, exports, deliveries): the ones in
 * the set inserted or updated, the withdrawn ones and those that left the set marked. Either way in one
 * transaction, with the run's signed manifest in the sync log.
 */

export interface TableRun {
  records: number;
  bytes: number;
  resolved: Record<string, string>;
  walk: WalkSummary | null;
  proof: FileProof | null;
  result: Extract<RunEnd, { file: string }>;
}

export interface TableRunInput {
  delivery: Delivery;
  runId: string;
  trigger: string;
  startedMs: number;
  /** The run's private spool folder. */
  dir: string;
  password: string;
  address: { address: string; family: 4 | 6 };
  /** Starts keeping what a full load delivered (lib/history/keep.ts); the run finishes it once its walk slot is given back. */
  keep: () => Promise<Keeping | null>;
}

const lower = (value: string | null) => (value === null ? null : value.toLowerCase());

/** Whether a record's newest version is in the set the (fixed) filters choose. */
export function inSet(head: MovedHead, filters: Record<string, string>): boolean {
  if (filters.sport && lower(head.sport) !== filters.sport.toLowerCase()) return false;
  if (filters.league && lower(head.league) !== filters.league.toLowerCase()) return false;
  if (filters.status && head.status !== filters.status) return false;
  if (filters.result && head.result !== filters.result) return false;
  if (filters.from && (head.eventMs === null || head.eventMs < Date.parse(filters.from))) return false;
  if (filters.to && (head.eventMs === null || head.eventMs >= Date.parse(filters.to))) return false;
  return true;
}

const sameFilters = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** `stillOurs` is asked just before the commit: a run another instance took for crashed writes nothing. */
export async function runTable(db: Kysely<Database>, input: TableRunInput, stillOurs: () => Promise<boolean>): Promise<TableRun> {
  const { delivery, startedMs } = input;
  const d = delivery.destination as unknown as PgDestination;
  const resolved = runFilters('picks', delivery.filters, startedMs);
  const client = await connectTo({ ...d, password: input.password, address: input.address });
  const hash = createHash('sha256');
  let bytes = 0;
  let records = 0;
  let walk: WalkSummary | null = null;
  let proof: FileProof | null = null;
  const tap = (chunk: Buffer | string) => {
    hash.update(chunk);
    bytes += Buffer.byteLength(chunk);
  };
  try {
    const last = await lastSync(client, d, delivery.id);
    const write = await lastHistoryWrite(db);
    const full = !last || !sameFilters(last.filters, resolved) || last.historyWrite > write;
    const spool = path.join(input.dir, 'records.jsonl');
    if (full) {
      // What the run loaded is kept like any delivery's, so it can be reconciled.
      const made = await produce(db, { ...delivery, format: 'jsonl' }, startedMs, spool, tap, await input.keep());
      records = made.records;
      walk = made.walk ? walkSummary(made.walk) : null;
      proof = made.proof ? finishProof(made.proof) : null;
    } else if ((await readFeed(db)).completeMs === null)
      throw new AppError({
        code: 'DELIVERY_NOT_READY',
        message: 'The change feed has not completed a poll yet: there are no changes to write.',
      });
    let sha256 = '';
    const at = new Date();
    const mode = full ? ('full' as const) : ('changes' as const);
    const work = async (writer: TableWriter) => {
      if (full) await stageSpool(spool, writer);
      else records = await stageMoved(db, last!.historyWrite, resolved, writer, tap);
      sha256 = hash.digest('hex');
      return {
        run: input.runId,
        deliveryId: delivery.id,
        deliveryName: delivery.name,
        mode,
        historyWrite: write,
        filters: resolved,
        records,
        sha256,
      };
    };
    const licence = proof ? proof.licence.licenceId : ((await licenceOrNull())?.licenceId ?? null);
    const manifestOf = (counts: SyncCounts) => ({
      manifestVersion: MANIFEST_VERSION,
      delivery: { id: delivery.id, name: delivery.name },
      run: input.runId,
      kind: delivery.kind,
      format: 'jsonl',
      table: describeTable(d),
      mode,
      // The record history's writes the run covers: after `from` (none: the whole set) up to `to`.
      historyWrites: { from: full ? null : last!.historyWrite, to: write },
      ...counts,
      filters: delivery.filters,
      resolvedFilters: resolved,
      records,
      bytes,
      sha256,
      licence,
      recordIds: proof?.recordIds ?? null,
      dataAsOf: proof?.dataAsOf ?? null,
      licenceAttestation: proof?.licence ?? null,
      requestedBy: { delivery: delivery.id, trigger: input.trigger },
      walk,
      startedAt: new Date(startedMs).toISOString(),
      finishedAt: new Date().toISOString(),
    });
    const counts = await syncInTransaction(client, d, delivery.id, last, mode, at, work, async (c) => {
      if (!(await stillOurs())) throw new AppError({ code: 'DELIVERY_FAILED', message: 'taken for crashed while the store was away' });
      const signed = await signDocument(manifestOf(c), MANIFEST_TYPE);
      return { manifest: signed.json, jws: signed.jws };
    });
    return {
      records,
      bytes,
      resolved,
      walk,
      proof,
      result: { file: describeTable(d), sha256, licence, until: null, table: { mode, ...counts } },
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The full load: the spooled JSON Lines, each record staged with the version naming its content. */
async function stageSpool(spool: string, writer: TableWriter): Promise<void> {
  let rows: { id: string; line: string }[] = [];
  for await (const line of createInterface({ input: createReadStream(spool, 'utf8'), crlfDelay: Infinity })) {
    if (line === '') continue;
    const record = JSON.parse(line) as Record<string, unknown> & { id: string };
    const version = versionOf(record);
    rows.push({ id: record.id, line: copyLine(record, version.body, version.digest) });
    if (rows.length === 2_000) {
      await writer.stage(rows);
      rows = [];
    }
  }
  if (rows.length > 0) await writer.stage(rows);
}

/** The changes: every record the history moved after `since`, staged when in the set, marked otherwise. */
async function stageMoved(
  db: Kysely<Database>,
  since: number,
  filters: Record<string, string>,
  writer: TableWriter,
  tap: (chunk: string) => void,
): Promise<number> {
  let staged = 0;
  for (let after: string | null = null; ;) {
    const heads = await headsMovedAfter(db, since, after, 1_000);
    const rows: { id: string; line: string }[] = [];
    const marks: string[] = [];
    for (const head of heads) {
      if (head.body === null || head.digest === null || !inSet(head, filters)) {
        marks.push(head.pickId);
        continue;
      }
      rows.push({ id: head.pickId, line: copyLine(JSON.parse(head.body) as Record<string, unknown>, head.body, head.digest) });
      tap(`${head.body}\n`);
    }
    if (rows.length > 0) await writer.stage(rows);
    writer.mark(marks);
    staged += rows.length;
    if (heads.length < 1_000) return staged;
    after = heads.at(-1)!.pickId;
  }
}
