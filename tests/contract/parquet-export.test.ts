import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParquetFile, PARQUET_COLUMNS } from '@/lib/export/parquet';
import { planExport, startExport } from '@/lib/export/stream';
import { createPicksClient } from '@/lib/picks-api/client';
import { PICK_FIELDS, type Pick } from '@/lib/picks-api/schemas';
import { createSandbox, type Sandbox } from '@/sandbox/server';

/**
 * Parquet read by a real reader, DuckDB (@duckdb/node-api), not by the project: an export of the sandbox's records
 * over real HTTP holds exactly the JSON export's records, value by value and type by type (times as UTC timestamps,
 * doubles, booleans, structs), with the portal's key/value metadata; files of many row groups, a `line` of labels,
 * and values that fit no column (kept in `extra`) read back whole.
 */

const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let baseUrl: string;
let dir: string;
let duck: DuckDBConnection;

beforeAll(async () => {
  sandbox = createSandbox({ rateLimit: null, picks: 3000 });
  baseUrl = await sandbox.listen(0);
  dir = await mkdtemp(path.join(tmpdir(), 'parquet-'));
  duck = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => sandbox.close());

const client = () => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });
const bytesOf = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer());
const rows = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

async function exported(format: 'json' | 'parquet', query: string) {
  const started = await startExport(planExport('picks', new URLSearchParams(query), format, null), {
    client: client(),
    about: { exportId: 'exp_0123', licenceId: 'lic_full' },
  });
  return { bytes: await bytesOf(started.stream), contentType: started.contentType, filename: started.filename };
}

/** A record's value as the Parquet column should hold it (times as epoch milliseconds). */
const expected = (record: Pick, field: string): unknown => {
  const value = record[field as keyof Pick];
  if (value === undefined || value === null) return null;
  if (['eventDate', 'settledAt', 'publishedAt'].includes(field)) return Date.parse(value as string);
  if (field === 'eventMetadata' || field === 'widgetEventIdentity') {
    const children = field === 'eventMetadata' ? ['competition', 'stage'] : ['sourceEventId', 'sportKey', 'competitionKey'];
    return Object.fromEntries(children.map((child) => [child, (value as Record<string, unknown>)[child] ?? null]));
  }
  return value;
};

describe('a Parquet export, read by DuckDB', () => {
  it('holds the JSON export’s records value by value and type by type, with the portal’s metadata', async () => {
    const json = JSON.parse((await exported('json', 'sport=Football')).bytes.toString('utf8')) as { data: Pick[] };
    expect(json.data.length).toBeGreaterThan(100);
    const parquet = await exported('parquet', 'sport=Football');
    expect(parquet.contentType).toBe('application/vnd.apache.parquet');
    expect(parquet.filename).toMatch(/^picks-football-\d{8}T\d{6}Z\.parquet$/);
    const file = path.join(dir, 'football.parquet');
    await writeFile(file, parquet.bytes);

    const types = Object.fromEntries(
      (await rows(`describe select * from read_parquet('${file}')`)).map((r) => [r.column_name, r.column_type]),
    );
    expect(Object.keys(types)).toEqual([...PICK_FIELDS, 'extra']);
    expect(types).toMatchObject({
      id: 'VARCHAR',
      eventDate: 'TIMESTAMP WITH TIME ZONE',
      settledAt: 'TIMESTAMP WITH TIME ZONE',
      publishedAt: 'TIMESTAMP WITH TIME ZONE',
      odds: 'DOUBLE',
      probability: 'DOUBLE',
      isPlayerPick: 'BOOLEAN',
      eventMetadata: 'STRUCT(competition VARCHAR, stage VARCHAR)',
      widgetEventIdentity: 'STRUCT(sourceEventId VARCHAR, sportKey VARCHAR, competitionKey VARCHAR)',
    });
    expect(['DOUBLE', 'VARCHAR']).toContain(types.line);
    expect(PARQUET_COLUMNS).toContain('eventMetadata.stage');

    const times = ['eventDate', 'settledAt', 'publishedAt'];
    const select = PICK_FIELDS.map((f) => (times.includes(f) ? `epoch_ms("${f}") as "${f}"` : `"${f}"`)).join(', ');
    const read = await rows(`select ${select}, extra from read_parquet('${file}')`);
    expect(read).toHaveLength(json.data.length);
    for (const [i, record] of json.data.entries()) {
      const row = read[i]!;
      for (const field of PICK_FIELDS) {
        const want = expected(record, field);
        const got = times.includes(field) && row[field] !== null ? Number(row[field]) : row[field];
        if (field === 'line' && types.line === 'VARCHAR') expect(got, `${record.id} line`).toBe(want === null ? null : String(want));
        else expect(got, `${record.id} ${field}`).toEqual(want);
      }
      const beyond = Object.keys(record).filter((key) => !(PICK_FIELDS as readonly string[]).includes(key));
      expect(row.extra === null ? {} : JSON.parse(row.extra as string)).toEqual(
        Object.fromEntries(beyond.map((k) => [k, record[k as keyof Pick]])),
      );
    }

    const metadata = Object.fromEntries(
      (await rows(`select decode(key) as k, decode(value) as v from parquet_kv_metadata('${file}')`)).map((r) => [
        r.k,
        JSON.parse(r.v as string),
      ]),
    );
    expect(metadata['picks.export']).toMatchObject({
      endpoint: '/api/v1/picks',
      filters: { sport: 'Football' },
      exportId: 'exp_0123',
      licenceId: 'lic_full',
    });
    expect(metadata['picks.count']).toBe(json.data.length);
  });

  it('writes a row group at a time, keeps a line of labels as text, and keeps what fits no column in extra', async () => {
    const file = new ParquetFile({ 'picks.export': { test: true } }, 3);
    const records: Pick[] = Array.from({ length: 7 }, (_, i) => ({
      id: `p${i}`,
      line: i === 0 ? 'Over 2.5' : i,
      eventDate: i === 5 ? 'TBD' : `2026-11-2${i}T12:00:00Z`,
      odds: 1.5 + i,
      isPlayerPick: i % 2 === 0,
      eventMetadata: i === 6 ? { competition: 'EPL', stage: null, round: 3 } : null,
      ...(i === 4 ? { partnerNote: 'kept' } : {}),
    }));
    const parts = [file.add(records.slice(0, 2)), file.add(records.slice(2)), file.finish({ 'picks.count': 7 })];
    // Nothing before the first group is full (the schema waits for it: line's type); the rest group by group.
    expect(parts[0]!.length).toBe(0);
    const target = path.join(dir, 'groups.parquet');
    await writeFile(target, Buffer.concat(parts));
    const groups = await rows(`select count(distinct row_group_id) as n from parquet_metadata('${target}')`);
    expect(Number(groups[0]!.n)).toBe(3);
    const read = await rows(
      `select id, line, epoch_ms(eventDate) as eventDate, eventMetadata, extra from read_parquet('${target}') order by id`,
    );
    expect(read.map((r) => r.line)).toEqual(['Over 2.5', '1', '2', '3', '4', '5', '6']);
    expect(read[5]).toMatchObject({ id: 'p5', eventDate: null, extra: '{"eventDate":"TBD"}' });
    expect(read[4]!.extra).toBe('{"partnerNote":"kept"}');
    expect(read[6]).toMatchObject({ eventMetadata: { competition: 'EPL', stage: null }, extra: '{"eventMetadata":{"round":3}}' });
    expect(Number(read[1]!.eventDate)).toBe(Date.parse('2026-11-21T12:00:00Z'));
  });
});
