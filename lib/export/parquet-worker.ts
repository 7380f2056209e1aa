import { parentPort } from 'node:worker_threads';
import type { Pick } from '../picks-api/schemas';
import { ParquetFile } from './parquet';

/**
 * Parquet files written on a worker thread (./parquet-thread.ts): turning a page into column values and encoding
 * a row group (10,000 records, 0.2–0.3 s at a stretch) never holds the serving thread. Pages come as JSON
 * Lines bytes (an export's: the upstream's own bytes, ../export/json.ts; record history's: its stored bodies). The
 * thread writes any number of files at once, each by its number; calls come in order and each is answered with the
 * bytes it wrote (transferred, not copied) or why it could not.
 */

export type ToWriter =
  | { type: 'open'; file: number; metadata: string; rowGroup: number }
  | { type: 'lines'; file: number; call: number; lines: Uint8Array }
  | { type: 'finish'; file: number; call: number; metadata: string }
  | { type: 'drop'; file: number }
  | { type: 'close' };
export type FromWriter = { call: number; bytes: Uint8Array } | { call: number; error: string };

const port = parentPort!;
const utf8 = new TextDecoder();

/** JSON Lines (one record a line, each ended by LF; no raw LF inside a JSON value) as the records. */
function fromLines(bytes: Uint8Array): Pick[] {
  const text = utf8.decode(bytes);
  return text.length === 0 ? [] : (JSON.parse(`[${text.slice(0, -1).replaceAll('\n', ',')}]`) as Pick[]);
}

const files = new Map<number, ParquetFile>();

port.on('message', (message: ToWriter) => {
  if (message.type === 'close') process.exit(0); // idle: the serving thread closes the worker (this ends the thread)
  if (message.type === 'open') return void files.set(message.file, new ParquetFile(JSON.parse(message.metadata), message.rowGroup));
  if (message.type === 'drop') return void files.delete(message.file);
  try {
    const file = files.get(message.file);
    if (!file) throw new Error('the file was not opened or has already ended');
    const written =
      message.type === 'lines'
        ? file.add(fromLines(message.lines))
        : (files.delete(message.file), file.finish(JSON.parse(message.metadata)));
    const bytes = new Uint8Array(written); // a buffer of its own, so it can be transferred
    port.postMessage({ call: message.call, bytes } satisfies FromWriter, [bytes.buffer]);
  } catch (error) {
    files.delete(message.file);
    port.postMessage({ call: message.call, error: (error as Error).message } satisfies FromWriter);
  }
});
