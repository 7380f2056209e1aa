import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvHeader, csvLines, toCsvRow } from '@/lib/export/csv';
import { dataSpans } from '@/lib/export/json';
import { exportFilename, planExport, startExport } from '@/lib/export/stream';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { json, page, scriptedFetch, type Step } from '../support/stub-fetch';

const parse = (text: string) => Papa.parse<string[]>(text, { skipEmptyLines: true }).data;

describe('CSV rows', () => {
  it('has every documented field in spec order, nested objects as dotted columns', () => {
    expect(CSV_COLUMNS.slice(0, 7)).toEqual([
      'id',
      'sport',
      'league',
      'roundOrWeek',
      'eventMetadata.competition',
      'eventMetadata.stage',
      'eventDescription',
    ]);
    expect(CSV_COLUMNS).toContain('widgetEventIdentity.sourceEventId');
    expect(CSV_COLUMNS.at(-1)).toBe('isPlayerPick');
    expect(CSV_COLUMNS).toHaveLength(38);
    expect(parse(csvHeader())[0]).toEqual(CSV_COLUMNS);
  });

  it('flattens, leaves null and absent empty, keeps numbers and booleans', () => {
    const pick = {
      id: 'a',
      eventMetadata: { competition: 'EPL', stage: null },
      line: null,
      odds: 1.85,
      probability: 0.5,
      isPlayerPick: false,
      widgetEventIdentity: { sourceEventId: 'e1' },
    } as Pick;
    const row = toCsvRow(pick);
    const at = (column: string) => row[CSV_COLUMNS.indexOf(column)];
    expect([
      at('id'),
      at('eventMetadata.competition'),
      at('eventMetadata.stage'),
      at('line'),
      at('sport'),
      at('odds'),
      at('isPlayerPick'),
      at('widgetEventIdentity.sourceEventId'),
      at('widgetEventIdentity.sportKey'),
    ]).toEqual(['a', 'EPL', null, null, null, 1.85, false, 'e1', null]);
    const [line] = parse(csvLines([pick]));
    expect(line![CSV_COLUMNS.indexOf('odds')]).toBe('1.85');
    expect(line![CSV_COLUMNS.indexOf('sport')]).toBe('');
    const typed = Papa.parse<Record<string, unknown>>(`${csvHeader()}${csvLines([pick])}`, { header: true, dynamicTyping: true }).data[0]!;
    expect(typeof typed.odds).toBe('number');
  });

  it('quotes commas, quotes and newlines (RFC 4180)', () => {
    const pick = { id: 'q', selection: 'Over 2,5', reasoning: 'He said "value"\nthen left', attribution: 'a\r\nb' } as Pick;
    const text = csvLines([pick]);
    expect(text).toContain('"Over 2,5"');
    expect(text).toContain('"He said ""value""\nthen left"');
    expect(text.endsWith('\r\n')).toBe(true);
    const [line] = parse(text);
    expect(line![CSV_COLUMNS.indexOf('reasoning')]).toBe('He said "value"\nthen left');
  });

  it('neutralises formulas in text but never touches numbers such as -110', () => {
    const texts = ['=SUM(A1:A9)', '+1+1', '-2+3', '@cmd', '\tTAB', '\rCR', '\nLF'];
    const rows = texts.map((t, i) => ({ id: `f${i}`, selection: t, odds: -110, line: -1.5 }) as Pick);
    const parsed = parse(csvLines(rows));
    parsed.forEach((line, i) => {
      expect(line[CSV_COLUMNS.indexOf('selection')]).toBe(`'${texts[i]}`);
      expect(line[CSV_COLUMNS.indexOf('odds')]).toBe('-110');
      expect(line[CSV_COLUMNS.indexOf('line')]).toBe('-1.5');
    });
    expect(parse(csvLines([{ id: 'n', selection: 'Arsenal -1' } as Pick]))[0]![CSV_COLUMNS.indexOf('selection')]).toBe('Arsenal -1');
  });
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

function stubClient(steps: Step[]) {
  const stub = scriptedFetch(steps);
  return {
    client: createPicksClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: stub.fetch, retry: { maxRetries: 0 } }),
    ...stub,
  };
}

describe('streamed JSON', () => {
  const plan = planExport('picks', new URLSearchParams('sport=Football'), 'json', null);

  it.each([
    ['no records', [page([], null)], 0],
    ['one record', [page(['a'], null)], 1],
    ['many records over pages', [page(['a', 'b'], 'c1'), page(['c'], 'c2'), page([], 'c3'), page(['d', 'e'], null)], 5],
  ])('is one valid JSON document for %s', async (_name, steps, count) => {
    const { client } = stubClient(steps);
    const text = await readAll((await startExport(plan, { client })).stream);
    const doc = JSON.parse(text);
    expect(doc.count).toBe(count);
    expect(doc.data).toHaveLength(count);
    expect(doc.export).toMatchObject({ endpoint: '/api/v1/picks', filters: { sport: 'Football' } });
    expect(text.split('\n').length - 1).toBe(count + 5); // one record a line: what the page counts progress by
  });

  it('errors the stream when the upstream fails mid-way, never closing it like a finished file', async () => {
    const { client } = stubClient([page(['a'], 'c1'), json({}, 500)]);
    const started = await startExport(plan, { client });
    await expect(readAll(started.stream)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
  });

  it('refuses before writing anything when the first page fails', async () => {
    const { client } = stubClient([json({ error: { code: 'X', requestId: 'req_1' } }, 403)]);
    await expect(startExport(plan, { client })).rejects.toMatchObject({ code: 'LICENCE_UNAVAILABLE' });
  });

  it('stops walking when the reader cancels', async () => {
    const { client, calls } = stubClient([page(['a'], 'c1'), page(['b'], 'c2'), page(['c'], 'c3'), page(['d'], null)]);
    const started = await startExport(plan, { client });
    const reader = started.stream.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.length).toBeLessThanOrEqual(3); // the first page, its prefetch, at most one more
  });
});

describe('JSON records copied from the upstream body', () => {
  const plan = planExport('picks', new URLSearchParams(), 'json', null);
  const raw = (text: string, status = 200) => new Response(text, { status, headers: { 'Content-Type': 'application/json' } });
  const exportOf = async (...bodies: string[]) =>
    readAll((await startExport(plan, { client: stubClient(bodies.map((b) => raw(b))).client })).stream);
  const recordLines = (text: string) =>
    text
      .split('\n')
      .slice(2, -4)
      .map((line) => line.replace(/,$/, ''));

  it('keeps each record byte for byte, as the upstream wrote it (number forms, escapes, key order, unknown fields)', async () => {
    const records = [
      '{"id":"a","odds":1.50,"line":-0.0,"homeTeam":"Bayern M\\u00fcnchen","x":{"nested":[1,{"deep":"}],{["}]},"sport":null}',
      '{"sport":"Tennis","id":"b\\"q\\\\","reasoning":"},{\\"id\\":\\"fake\\"}"}',
    ];
    const text = await exportOf(`{"data":[${records[0]},${records[1]}],"page":{"nextCursor":null,"hasMore":false},"requestId":"r"}`);
    expect(recordLines(text)).toEqual(records);
    const doc = JSON.parse(text);
    expect(doc.data.map((p: { id: string }) => p.id)).toEqual(['a', 'b"q\\']);
    expect(doc.count).toBe(2);
  });

  it('re-serialises records spread over several lines, still one record a line', async () => {
    const pretty = JSON.stringify(
      { data: [{ id: 'a', eventMetadata: { competition: 'EPL' } }, { id: 'b' }], page: { nextCursor: null, hasMore: false } },
      null,
      2,
    );
    const text = await exportOf(pretty);
    expect(recordLines(text)).toEqual(['{"id":"a","eventMetadata":{"competition":"EPL"}}', '{"id":"b"}']);
  });

  it('follows JSON.parse when the body is odd: the last "data" wins; an escaped key is re-serialised', async () => {
    const twice = await exportOf('{"data":[{"id":"first"}],"page":{"hasMore":false},"data":[{"id":"last", "odds":2.0}]}');
    expect(recordLines(twice)).toEqual(['{"id":"last", "odds":2.0}']);
    const escaped = await exportOf('{"d\\u0061ta":[{"id":"e","odds":2.0}],"page":{"hasMore":false}}');
    expect(recordLines(escaped)).toEqual(['{"id":"e","odds":2}']);
  });

  it('locates the elements of a bare array (a /results shape the spec leaves open)', () => {
    const body = Buffer.from(' [ {"id":"a"} ,{"id":"b","t":"]"}]');
    expect(dataSpans(body)).toEqual([3, 13, 15, 33]);
    expect(dataSpans(Buffer.from('{"page":{"hasMore":false},"data":[]}'))).toEqual([]);
    expect(dataSpans(Buffer.from('{"data":[1,2]}'))).toBeNull();
    expect(dataSpans(Buffer.from('\uFEFF{"data":[]}'))).toBeNull();
  });

  it('gives exactly the parsed records for many generated bodies, compact or spaced out', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['a', 'é', '⚽', '"', '\\', '{', '}', '[', ']', ',', ':', '\n', '\u2028', '},{', ' ', '\t', '<', '😀'];
    const text = () => Array.from({ length: Math.floor(random() * 8) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    for (let round = 0; round < 200; round += 1) {
      const data = Array.from({ length: Math.floor(random() * 5) }, (_, k) => ({
        id: `r${round}-${k}${text()}`,
        reasoning: text(),
        odds: random() < 0.5 ? null : Math.round(random() * 1000) / 100,
        extra: random() < 0.3 ? [text(), { nested: [text(), {}] }] : undefined,
      }));
      const indent = [undefined, 0, 1, '\t'][Math.floor(random() * 4)];
      const body = JSON.stringify(
        random() < 0.5 ? { requestId: text(), data, page: { nextCursor: null, hasMore: false } } : { page: { hasMore: false }, data },
        null,
        indent,
      );
      const spans = dataSpans(Buffer.from(body));
      if (!indent) {
        // One line per record: located exactly, each span the record itself.
        expect(spans).toHaveLength(data.length * 2);
        const bytes = Buffer.from(body);
        expect(data.map((_, k) => JSON.parse(bytes.subarray(spans![2 * k], spans![2 * k + 1]).toString()))).toEqual(JSON.parse(body).data);
      } else if (data.length > 0) {
        expect(spans).toBeNull(); // spread over lines: left to JSON.stringify
      }
      const out = await exportOf(body);
      const doc = JSON.parse(out);
      expect(doc.data).toEqual(JSON.parse(body).data);
      expect(out.split('\n').length - 1).toBe(data.length + 5);
    }
  });
});

describe('JSON Lines', () => {
  const plan = planExport('picks', new URLSearchParams('sport=Football'), 'jsonl', '1');
  const raw = (text: string) => new Response(text, { status: 200, headers: { 'Content-Type': 'application/json' } });

  it('is one record a line, each ended by LF, nothing around them, and no byte-order mark', async () => {
    expect(plan.bom).toBe(false);
    const { client } = stubClient([page(['a', 'b'], 'c1'), page([], 'c2'), page(['c'], null)]);
    const started = await startExport(plan, { client });
    expect(started.contentType).toBe('application/jsonl; charset=utf-8');
    expect(started.filename).toMatch(/^picks-football-\d{8}T\d{6}Z\.jsonl$/);
    const text = await readAll(started.stream);
    expect(text.endsWith('\n')).toBe(true);
    expect(
      text
        .slice(0, -1)
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(['a', 'b', 'c']);
    const empty = await readAll((await startExport(plan, { client: stubClient([page([], null)]).client })).stream);
    expect(empty).toBe('');
  });

  it('keeps each record as the upstream wrote it, and re-serialises one spread over lines', async () => {
    const kept = '{"id":"a","odds":1.50,"homeTeam":"Bayern M\\u00fcnchen","x":{"n":[1,{"d":"}]"}]}}';
    const body = `{"data":[${kept},{"id":"b"}],"page":{"nextCursor":null,"hasMore":false}}`;
    const text = await readAll((await startExport(plan, { client: stubClient([raw(body)]).client })).stream);
    expect(text).toBe(`${kept}\n{"id":"b"}\n`);
    const pretty = JSON.stringify({ data: [{ id: 'p', eventMetadata: { stage: 'final' } }], page: { hasMore: false } }, null, 2);
    expect(await readAll((await startExport(plan, { client: stubClient([raw(pretty)]).client })).stream)).toBe(
      '{"id":"p","eventMetadata":{"stage":"final"}}\n',
    );
  });

  it('errors the stream when the upstream fails mid-way', async () => {
    const started = await startExport(plan, { client: stubClient([page(['a'], 'c1'), json({}, 500)]).client });
    await expect(readAll(started.stream)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
  });
});

describe('export requests', () => {
  it('name the file by what, how filtered and when', () => {
    expect(
      exportFilename(
        { kind: 'picks', format: 'csv', sent: { sport: 'Football', league: 'Trinidad & Tobago', from: '2026-01-01' } },
        new Date('2026-11-22T12:00:00.123Z'),
      ),
    ).toBe('picks-football-trinidad-tobago-20261122T120000Z.csv');
    expect(exportFilename({ kind: 'results', format: 'json', sent: {} }, new Date('2026-11-22T12:00:00Z'))).toBe(
      'results-20261122T120000Z.json',
    );
  });

  it('refuse a bad format or bad filters before anything starts', () => {
    expect(() => planExport('picks', new URLSearchParams(''), 'xlsx', null)).toThrow('format must be csv, json, jsonl or parquet');
    expect(() => planExport('picks', new URLSearchParams('status=nope'), 'csv', null)).toThrow('status must be one of');
    expect(planExport('picks', new URLSearchParams('sport=NFL&limit=5&cursor=x'), 'csv', '1')).toMatchObject({
      filters: { sport: 'NFL' },
      bom: true,
      sent: { sport: 'NFL' },
    });
  });
});

describe('JSON the portal writes', () => {
  it('never carries raw < > & from input, yet parses to the same values', async () => {
    const { toSafeJson } = await import('@/lib/safe-json');
    const value = { sport: '<script>alert(1)</script> & "x"', line: '\u2028' };
    const text = toSafeJson(value);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
