/**
 * A file made of many entries read from the store a batch at a time, streamed with backpressure (never
 * built in memory): a head, rows batch by batch, then a tail. The first entry is read before this returns,
 * so a store that is away is an error before any byte, not a broken download; a failure later errors the
 * stream (no tail), so a cut file never looks complete. The audit trail's and the change feed's files.
 */

export interface BatchedFile<T> {
  head: string;
  rows: (batch: T[], first: boolean) => string;
  /** Written after the last row (a JSON document's closing); '' for CSV. */
  tail: (count: number) => string;
}

export async function batchedFileStream<T>(
  items: AsyncIterator<T>,
  file: BatchedFile<T>,
  options: {
    batch: number;
    fault: (cause: unknown) => Error;
    onCount?: (count: number) => void;
    onError?: (cause: unknown, count: number) => void;
  },
): Promise<ReadableStream<Uint8Array>> {
  let first: IteratorResult<T> | null = await items.next().catch((cause: unknown) => Promise.reject(options.fault(cause)));
  const next = () => {
    const held = first;
    first = null;
    return held ? Promise.resolve(held) : items.next();
  };
  const encode = (text: string) => Buffer.from(text, 'utf8');
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
          const batch: T[] = [];
          for (let item = await next(); !item.done; item = await next()) {
            batch.push(item.value);
            if (batch.length === options.batch) break;
          }
          if (batch.length > 0) {
            output.enqueue(encode(file.rows(batch, count === 0)));
            count += batch.length;
            options.onCount?.(count);
            if (batch.length === options.batch) return;
          }
          const tail = file.tail(count);
          if (tail) output.enqueue(encode(tail));
          output.close();
        } catch (cause) {
          options.onError?.(cause, count);
          output.error(options.fault(cause));
        }
      },
      async cancel() {
        await items.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
