import { constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { pageBytes, type PickList } from '../picks-api';
import { runningWalks } from '../draining';
import { encodingOf } from '../picks-api/byte-strings';
import { recordDelivered } from '../store/delivered';
import { recordVersionsIn } from '../store/history';
import type { Database } from '../store/schema';
import { versionOf, type Observer, type Version } from '../vocabulary/version';

/**
 * What an export or a delivery run delivered, kept for reconciliation without slowing it down: while it
 * streams, each page's body goes to a spool file as the upstream sent it (no work per record: the bytes are
 * already in hand); once it has ended complete, the spool is read back in the background, each record's
 * version is named and kept in the history, and the file's list of (record, version) is stored. A run
 * that fails or is cancelled keeps nothing. Records a walk dropped as duplicates are dropped here too
 * (the first sighting of an id is the one written).
 */

export interface Capture {
  /** A page as written to the file; resolves when the spool can take more (its disk is slower than the reader). */
  page(page: PickList): Promise<void> | void;
  /** The file ended: kept when complete (in the background; `kept` settles when done), discarded otherwise. */
  finish(complete: boolean): void;
  /** Settles once the spool is processed or discarded; rejects when keeping failed. */
  readonly kept: Promise<number>;
}

// Read back in small batches with a pause between them: background work that leaves the process to the pages
// and files people are waiting for (a 40,000-record file takes a few seconds more to be kept, not their time).
// While exports, coverage reports or delivery runs are running in this process, it waits for them to end (they are
// what people wait for), but never more than YIELD_MAX_MS in all: a file is reconcilable within a minute or so.
const BATCH = 1_000;
const PAUSE_MS = 2;
const YIELD_MAX_MS = 60_000;
const YIELD_POLL_MS = 100;
/** A spool file made here and now, owner-only, never one already there or a link planted in its place. */
export function newFileStream(file: string, highWaterMark?: number): WriteStream {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  return createWriteStream(file, { fd, highWaterMark });
}

// The spool takes a few pages before it holds the export back.
const SPOOL_BUFFER = 4 * 1024 * 1024;

export function startCapture(
  db: () => Promise<Kysely<Database>>,
  source: { id: string; by: Observer; deliveryId?: string | null },
  spoolDir: string,
  onError: (error: unknown) => void = () => undefined,
): Capture {
  const file = path.join(spoolDir, `capture-${source.id}.bin`);
  let stream: WriteStream | null = null;
  let failed: unknown = null;
  let settle: (value: Promise<number>) => void = () => undefined;
  const kept = new Promise<number>((resolve) => (settle = resolve));
  kept.catch(onError);

  /** The spool's stream, made on the first page; null when it cannot be made (finish() then reports why). */
  const writer = (): WriteStream | null => {
    if (!stream && !failed) {
      try {
        mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
        stream = newFileStream(file, SPOOL_BUFFER);
        stream.on('error', (error) => (failed = error));
      } catch (error) {
        failed = error;
      }
    }
    return stream;
  };

  return {
    page(page) {
      if (failed) return;
      const raw = pageBytes(page);
      // The upstream's bytes when the page is written as received; otherwise (records dropped by the walk) its data.
      const payload = raw
        ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
        : Buffer.from(JSON.stringify({ data: page.data }), encodingOf(page));
      const header = Buffer.alloc(13);
      header.writeUInt32BE(payload.length, 0);
      header.writeDoubleBE(Date.now(), 4);
      header.writeUInt8(encodingOf(page) === 'latin1' ? 1 : 0, 12);
      const out = writer();
      if (!out) return;
      out.write(header);
      // A spool that falls behind holds the export back: memory stays bounded whatever the disk.
      if (!out.write(payload))
        return new Promise<void>((resolve) => {
          // A spool that fails lets the export go on (it keeps nothing): never a stream waiting for ever.
          const done = () => {
            for (const event of ['drain', 'error', 'close']) out.off(event, done);
            resolve();
          };
          for (const event of ['drain', 'error', 'close']) out.on(event, done);
        });
    },
    finish(complete) {
      const open = stream as WriteStream | null;
      const closed = open ? new Promise<void>((resolve) => open.end(resolve)) : Promise.resolve();
      settle(
        closed.then(async () => {
          try {
            if (failed) throw failed;
            return complete && stream ? await keepSpool(await db(), file, source) : 0;
          } finally {
            await rm(file, { force: true });
          }
        }),
      );
    },
    kept,
  };
}

/** Reads a spool back a page at a time: versions into the history, the list into delivered_versions. */
async function keepSpool(
  db: Kysely<Database>,
  file: string,
  source: { id: string; by: Observer; deliveryId?: string | null },
): Promise<number> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  const seen = new Set<string>();
  let kept = 0;
  let batch: Version[] = [];
  let batchAt = 0;
  const yieldUntil = Date.now() + YIELD_MAX_MS;
  const giveWay = async () => {
    while (runningWalks() > 0 && Date.now() < yieldUntil) await pause(YIELD_POLL_MS);
  };
  const flush = async () => {
    if (batch.length === 0) return;
    await giveWay();
    // One transaction for a batch's versions and list: a handful of commits for a whole file, not hundreds.
    const [versions, at] = [batch, batchAt];
    await db.transaction().execute(async (trx) => {
      await recordVersionsIn(trx, versions, at, source.by);
      await recordDelivered(trx, source.id, versions, at, source.deliveryId ?? null);
    });
    kept += batch.length;
    batch = [];
    await pause(PAUSE_MS);
  };
  try {
    const header = Buffer.alloc(13);
    for (let at = 0; ;) {
      const { bytesRead } = await handle.read(header, 0, 13, at);
      if (bytesRead < 13) break;
      const length = header.readUInt32BE(0);
      const readAt = header.readDoubleBE(4);
      const encoding = header.readUInt8(12) === 1 ? 'latin1' : 'utf8';
      const payload = Buffer.alloc(length);
      await handle.read(payload, 0, length, at + 13);
      at += 13 + length;
      const body = JSON.parse(payload.toString(encoding)) as { data?: unknown };
      for (const record of Array.isArray(body.data) ? body.data : []) {
        if (!record || typeof record !== 'object' || typeof (record as { id?: unknown }).id !== 'string') continue;
        const version = versionOf(record as Record<string, unknown> & { id: string }, encoding);
        if (seen.has(version.id)) continue;
        seen.add(version.id);
        batch.push(version);
        batchAt = readAt;
        if (batch.length >= BATCH) await flush();
      }
    }
    await flush();
    return kept;
  } finally {
    await handle.close();
  }
}
