import 'server-only';
import type { FileFormat, RecordFormat } from '../vocabulary/formats';
import { newFileStream } from '../history/capture';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import { changesStream } from '../changes/stream';
import { parseChangeQuery } from '../changes/query';
import { AppError } from '../errors';
import { planExport, startExport } from '../export/stream';
import { searchedPagesOf } from '../records/search-export';
import { contentTypeOf } from '../export/file-headers';
import { correctionsStream, pendingFor } from '../history/corrections';
import type { Keeping } from '../history/keep';
import { newWalkReport, picksApi, type WalkReport } from '../picks-api';
import { getRecentLicence } from '../picks-api/portal';
import { notePage, startProof, type ProofInProgress } from '../proof/file-proof';
import { readFeed } from '../store/change-feed';
import type { Delivery } from '../store/deliveries';
import type { Database } from '../store/schema';
import { runFilters } from './input';

/**
 * What a run writes into its spool: the export of its filters (picks, results), the change feed's entries
 * since its last run (changes), with the sha256 taken as the bytes pass.
 */

export interface Produced {
  records: number;
  until: string | null;
  contentType: string;
  resolved: Record<string, string>;
  /** What the walk saw while the upstream moved (null for `changes`, which read the store). */
  walk: WalkReport | null;
  /** The records checked against the licence as they were written (null for `changes`). */
  proof: ProofInProgress | null;
  /** A correction run's records: the version each now holds at the destination ('' : withdrawn), and the file it corrects. */
  corrected?: { id: string; digest: string; corrects: string }[];
}

export async function produce(
  db: Kysely<Database>,
  delivery: Delivery,
  startedMs: number,
  spool: string,
  digest: (chunk: Buffer) => void,
  keeping: Keeping | null,
  correction = false,
): Promise<Produced> {
  const resolved = runFilters(delivery.kind, delivery.filters, startedMs);
  let records = 0;
  let stream: ReadableStream<Uint8Array>;
  let until: string | null = null;
  let proof: ProofInProgress | null = null;
  let walk: WalkReport | null = null;
  const corrected: NonNullable<Produced['corrected']> = [];
  if (correction) {
    // Only what the destination holds that is no longer true, from the history (lib/history/corrections.ts).
    async function* noted() {
      for await (const c of pendingFor(db, delivery.id)) {
        corrected.push({ id: c.id, digest: c.digest, corrects: c.corrects });
        yield c;
      }
    }
    const meta = { delivery: { id: delivery.id, name: delivery.name }, asOf: new Date(startedMs).toISOString() };
    stream = await correctionsStream(noted(), textFormat(delivery.format), meta, (n) => (records = n));
  } else if (delivery.kind === 'changes') {
    const feed = await readFeed(db);
    if (feed.completeMs === null)
      throw new AppError({
        code: 'DELIVERY_NOT_READY',
        message: 'The change feed has not completed a poll yet: there is nothing to compare.',
      });
    until = new Date(feed.completeMs).toISOString();
    const since = delivery.changesUntil ?? delivery.createdAt;
    const { format: _format, visit: _visit, ...query } = parseChangeQuery(new URLSearchParams(resolved), 'download');
    stream = await changesStream(
      db,
      { ...query, since, until },
      textFormat(delivery.format),
      { delivery: delivery.name, filters: resolved, since, until },
      (n) => (records = n),
    );
  } else {
    const plan = planExport(delivery.kind, new URLSearchParams(resolved), delivery.format, null);
    walk = newWalkReport();
    const licence = await getRecentLicence();
    const checking = (proof = startProof(licence.ok ? licence.value : null, plan.filters));
    const started = await startExport(plan, {
      client: picksApi(),
      // A searched or ordered set is written from the portal's index, within the licence in force.
      pages: searchedPagesOf(plan, licence),
      onPage: (n) => (records = n),
      onRecords: (page, encoding) => notePage(checking, page, encoding),
      onWritten: (page) => keeping?.page(page),
      report: walk,
      about: { delivery: delivery.id, licenceId: licence.ok ? licence.value.summary.licenceId : null },
    });
    stream = started.stream;
  }
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      digest(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(stream as never), tap, newFileStream(spool));
  return {
    records,
    until,
    contentType: contentTypeOf(delivery.format),
    resolved,
    walk,
    proof,
    ...(correction ? { corrected } : {}),
  };
}

/** Changes and corrections are files of text (lib/deliveries/check.ts refuses Parquet for them when a delivery is saved). */
function textFormat(format: RecordFormat): FileFormat {
  if (format === 'parquet')
    throw new AppError({ code: 'INVALID_DELIVERY', message: 'A changes or corrections file is csv, json or jsonl, not parquet.' });
  return format;
}
