/**
 * A file made of many entries read from the store a batch at a time, streamed with backpressure (never
 * built in memory): a head, rows batch by batch, then a tail. The first entry is read before this returns,
 * so a store that is away is an error before any byte, not a broken download; a failure later errors the
 * stream (no tail), so a cut file never looks complete. The audit trail's and the change feed's files.
 */

type Pieces = string | readonly (string | Uint8Array)[];

export interface BatchedFile<T> {
  head: string;
  /**
   * A batch's text, or its pieces in order, text or UTF-8 bytes (written into one buffer as they are, never joined
   * first); a promise where the writing happens off the serving thread (Parquet).
   */
  rows: (batch: T[], first: boolean) => Pieces | Promise<Pieces>;
  /** Written after the last row (a JSON document's closing, a Parquet file's footer); '' for CSV. */
  tail: (count: number) => Pieces | Promise<Pieces>;
  /** The file will not be finished (a failure, the reader gone): what its writer holds is let go. */
  abandon?: () => void;
}

interface BatchedFileOptions {
  batch: number;
  fault: (cause: unknown) => Error;
  onCount?: (count: number) => void;
  onError?: (cause: unknown, count: number) => void;
}

/** A file of entries read one at a time: gathered into batches of `options.batch`. */
export function batchedFileStream<T>(
  items: AsyncIterator<T>,
  file: BatchedFile<T>,
  options: BatchedFileOptions,
): Promise<ReadableStream<Uint8Array>> {
  return fileOfBatches(inBatches(items, options.batch), file, options);
}

async function* inBatches<T>(items: AsyncIterator<T>, size: number): AsyncGenerator<T[]> {
  try {
    let batch: T[] = [];
    for (let item = await items.next(); !item.done; item = await items.next()) {
      batch.push(item.value);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await items.return?.(undefined);
  }
}

function encode(text: Pieces): Buffer {
  if (typeof text === 'string') return Buffer.from(text, 'utf8');
  let length = 0;
  for (const piece of text) length += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.byteLength;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of text) {
    if (typeof piece === 'string') at += out.write(piece, at, 'utf8');
    else {
      out.set(piece, at);
      at += piece.byteLength;
    }
  }
  return out;
}

/** A file of entries a source reads a batch at a time (record history's sets): each batch written as it comes. */
export async function fileOfBatches<T>(
  batches: AsyncIterator<T[]>,
  file: BatchedFile<T>,
  options: Omit<BatchedFileOptions, 'batch'>,
): Promise<ReadableStream<Uint8Array>> {
  let first: IteratorResult<T[]> | null = await batches.next().catch((cause: unknown) => Promise.reject(options.fault(cause)));
  const next = () => {
    const held = first;
    first = null;
    return held ? Promise.resolve(held) : batches.next();
  };
  let count = 0;
  let opened = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(output) {
        try {
          if (!opened) {
            opened = true;
            output.enqueue(encode(file.head));
            return;
          }
          const batch = await next();
          if (!batch.done) {
            if (batch.value.length > 0) {
              output.enqueue(encode(await file.rows(batch.value, count === 0)));
              count += batch.value.length;
              options.onCount?.(count);
            }
            return;
          }
          const tail = encode(await file.tail(count));
          if (tail.length > 0) output.enqueue(tail);
          output.close();
        } catch (cause) {
          file.abandon?.();
          options.onError?.(cause, count);
          output.error(options.fault(cause));
        }
      },
      async cancel() {
        file.abandon?.();
        await batches.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
