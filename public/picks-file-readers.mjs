// picks-file-readers.mjs: the readers of verify-picks-file.mjs, served beside it (keep both in one folder). Each reads
// a file the Picks Partner Portal delivered once, as a stream where it can: its bytes, sha256, record count and
// record ids as byte strings (each id's UTF-8 bytes one character per byte, as the verifier digests them).
// Node.js alone (18 or later), nothing installed: its CSV reader is a few lines of RFC 4180.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

const latin1 = (text) => Buffer.from(text, 'utf8').toString('latin1');
const digested = (buffer) => ({ bytes: buffer.length, sha256: createHash('sha256').update(buffer).digest('hex') });

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const FORMULA = /^'[=+\-@\t\r\n]/; // the portal's CSV neutralises formulas with a leading '

/** A CSV file's bytes, sha256, record count and ids (as byte strings), read once as a stream; without `needIds`, a file with no id column is counted all the same. */
export async function readCsv(file, needIds = true) {
  const hash = createHash('sha256');
  const ids = [];
  const header = [];
  let bytes = 0;
  let rows = 0;
  let idColumn = -1;
  let row = 0;
  let field = 0;
  let quoted = false; // inside a quoted field
  let fieldHasBytes = false;
  let rowHasBytes = false;
  let pending = null; // the id field's bytes carried over from the previous chunk
  let start = 0;
  let first = true;

  const capturing = () => row === 0 || field === idColumn;
  const endField = (chunk, end) => {
    if (capturing()) {
      let raw = pending ? Buffer.concat([pending, chunk.subarray(start, end)]) : chunk.subarray(start, end);
      if (raw.length && raw[raw.length - 1] === CR) raw = raw.subarray(0, raw.length - 1);
      let text = raw.toString('latin1');
      if (text.startsWith('"')) text = text.slice(1, text.lastIndexOf('"')).replaceAll('""', '"');
      if (row === 0) header.push(Buffer.from(text, 'latin1').toString('utf8'));
      else ids.push(FORMULA.test(text) ? text.slice(1) : text);
    }
    pending = null;
    field += 1;
    fieldHasBytes = false;
  };
  const endRow = () => {
    if (row === 0) idColumn = header.indexOf('id');
    else if (field > 1 || rowHasBytes) rows += 1;
    row += 1;
    field = 0;
    rowHasBytes = false;
  };

  for await (const buffer of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(buffer);
    bytes += buffer.length;
    let chunk = buffer;
    if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3); // a BOM
    first = false;
    start = 0;
    const length = chunk.length;
    for (let i = 0; i < length; i += 1) {
      const byte = chunk[i];
      if (quoted) {
        // Jump to the next quote: either the field's end or the first of an escaped pair.
        const next = chunk.indexOf(QUOTE, i);
        if (next < 0) {
          i = length;
          break;
        }
        i = next;
        quoted = false; // a following quote re-enters (an escaped pair)
        continue;
      }
      if (byte === QUOTE) {
        quoted = true;
        fieldHasBytes = rowHasBytes = true;
      } else if (byte === COMMA) {
        endField(chunk, i);
        start = i + 1;
      } else if (byte === LF) {
        endField(chunk, i);
        endRow();
        start = i + 1;
      } else if (byte !== CR) fieldHasBytes = rowHasBytes = true;
    }
    if (capturing()) pending = pending ? Buffer.concat([pending, chunk.subarray(start)]) : Buffer.from(chunk.subarray(start));
  }
  if (field > 0 || fieldHasBytes) {
    endField(Buffer.alloc(0), 0);
    endRow();
  }
  if (idColumn < 0 && needIds) throw new Error('its header has no "id" column');
  return { bytes, sha256: hash.digest('hex'), records: rows, ids };
}

/** A JSON export's bytes, sha256, records and ids (its `data`; its own `count` must agree). */
export async function readJson(file) {
  const buffer = await readFile(file);
  const document = JSON.parse(buffer.toString('utf8'));
  // Records (`data`), or an audit download's `entries`, or a change-feed file's `changes`.
  const data = Array.isArray(document) ? document : (document.data ?? document.entries ?? document.changes);
  if (!Array.isArray(data)) throw new Error('it has no "data" array of records');
  if (typeof document.count === 'number' && document.count !== data.length)
    throw new Error(`it says it holds ${document.count} records but holds ${data.length}`);
  return { ...digested(buffer), records: data.length, ids: data.map((record) => latin1(String(record.id))) };
}

/** A JSON Lines export's bytes, sha256, records and ids: one record a line, each line ended by LF. */
export async function readJsonLines(file) {
  const buffer = await readFile(file);
  const text = buffer.toString('utf8');
  if (text && !text.endsWith('\n')) throw new Error('its last line does not end: the file was cut short');
  const ids = (text ? text.slice(0, -1).split('\n') : []).map((line, i) => {
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1} is not a JSON record`);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new Error(`line ${i + 1} is not a JSON object`);
    return latin1(String(record.id));
  });
  return { ...digested(buffer), records: ids.length, ids };
}

/** A Parquet file's bytes and sha256 (its records are read with a Parquet reader: DuckDB, pyarrow, Spark). */
export async function readBytes(file) {
  const buffer = await readFile(file);
  if (buffer.length < 8 || buffer.subarray(0, 4).toString() !== 'PAR1' || buffer.subarray(-4).toString() !== 'PAR1')
    throw new Error('it is not a whole Parquet file (no PAR1 at its start and end)');
  return { ...digested(buffer), records: undefined, ids: undefined };
}
