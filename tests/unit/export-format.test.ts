import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvHeader, csvLines, toCsvRow } from '@/lib/export/csv';
import { exportFilename, planExport, startExport } from '@/lib/export/stream';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { json, page, scriptedFetch, type Step } from '../support/stub-fetch';

const parse = (text: string) => Papa.parse<string[]>(text, { skipEmptyLines: true }).data;

describe('CSV rows', () => {
  it('has every documented field in spec order, nested objects as dotted columns', () => {
    expect(CSV_COLUMNS.slice(0, 7)).toEqual(['id', 'sport', 'league', 'roundOrWeek', 'eventMetadata.competition', 'eventMetadata.stage', 'eventDescription']);
    expect(CSV_COLUMNS).toContain('widgetEventIdentity.sourceEventId');
    expect(CSV_COLUMNS.at(-1)).toBe('isPlayerPick');
    expect(CSV_COLUMNS).toHaveLength(38);
    expect(parse(csvHeader())[0]).toEqual(CSV_COLUMNS);
  });

  it('flattens, leaves null and absent empty, keeps numbers and booleans', () => {
    const pick = { id: 'a', eventMetadata: { competition: 'EPL', stage: null }, line: null, odds: 1.85, probability: 0.5, isPlayerPick: false, widgetEventIdentity: { sourceEventId: 'e1' } } as Pick;
    const row = toCsvRow(pick);
    const at = (column: string) => row[CSV_COLUMNS.indexOf(column)];
    expect([at('id'), at('eventMetadata.competition'), at('eventMetadata.stage'), at('line'), at('sport'), at('odds'), at('isPlayerPick'), at('widgetEventIdentity.sourceEventId'), at('widgetEventIdentity.sportKey')])
      .toEqual(['a', 'EPL', null, null, null, 1.85, false, 'e1', null]);
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
  return { client: createPicksClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: stub.fetch, retry: { maxRetries: 0 } }), ...stub };
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

describe('export requests', () => {
  it('name the file by what, how filtered and when', () => {
    expect(exportFilename({ kind: 'picks', format: 'csv', sent: { sport: 'Football', league: 'Trinidad & Tobago', from: '2026-01-01' } }, new Date('2026-11-22T12:00:00.123Z')))
      .toBe('picks-football-trinidad-tobago-20261122T120000Z.csv');
    expect(exportFilename({ kind: 'results', format: 'json', sent: {} }, new Date('2026-11-22T12:00:00Z'))).toBe('results-20261122T120000Z.json');
  });

  it('refuse a bad format or bad filters before anything starts', () => {
    expect(() => planExport('picks', new URLSearchParams(''), 'xlsx', null)).toThrow('format must be csv or json');
    expect(() => planExport('picks', new URLSearchParams('status=nope'), 'csv', null)).toThrow('status must be one of');
    expect(planExport('picks', new URLSearchParams('sport=NFL&limit=5&cursor=x'), 'csv', '1')).toMatchObject({ filters: { sport: 'NFL' }, bom: true, sent: { sport: 'NFL' } });
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
