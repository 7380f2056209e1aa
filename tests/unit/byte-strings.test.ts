import { describe, expect, it } from 'vitest';
import { csvHeader, csvLines } from '@/lib/export/csv';
import { jsonRecords } from '@/lib/export/json';
import { planExport, startExport } from '@/lib/export/stream';
import { byteStringText, hasByteStrings, readableAsByteStrings, textOfByteString } from '@/lib/picks-api/byte-strings';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { scriptedFetch } from '../support/stub-fetch';

/**
 * Exports read upstream bodies as byte strings (one character per byte) and write their text back as
 * Latin-1. These tests hold that path to the ordinary one (decode as UTF-8, write as UTF-8): byte for byte
 * the same file, for every body the check lets through, and the check refusing the bodies where it would not be.
 */

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('which bodies may be read as byte strings', () => {
  it.each([
    ['ASCII', bytes('{"data":[{"id":"a"}]}')],
    ['UTF-8 text of every length (é, ⚽, 😀, NBSP, à whose second byte is 0xA0)', bytes('{"id":"é⚽😀\u00a0à\u0085"}')],
    ['\\u escapes below 0x80', bytes('{"id":"\\u0041\\u001f\\u007f"}')],
  ])('%s: yes', (_name, body) => expect(readableAsByteStrings(body)).toBe(true));

  it.each([
    ['a stray byte that is not UTF-8', bytes('{"id":"', [0xe9], '"}')],
    ['an overlong encoding', bytes('{"id":"', [0xc0, 0xaf], '"}')],
    ['an encoded surrogate', bytes('{"id":"', [0xed, 0xa0, 0x80], '"}')],
    ['a byte order mark at the start', bytes('\ufeff{"id":"a"}')],
    ['a U+FEFF inside text (papaparse quotes such text)', bytes('{"id":"a\ufeffb"}')],
    ['\\u00e9 (one character, not its two UTF-8 bytes)', bytes('{"id":"M\\u00fcnchen"}')],
    ['\\u2014 and a surrogate pair', bytes('{"id":"\\u2014 \\ud83d\\ude00"}')],
    ['an escaped backslash before "u00e9" (a false alarm, decoded as usual)', bytes('{"id":"\\\\u00e9"}')],
  ])('%s: no', (_name, body) => expect(readableAsByteStrings(body)).toBe(false));

  it('turns a byte string back into its text', () => {
    const text = 'Bayern München ⚽ 😀';
    expect(textOfByteString(byteStringText(Buffer.from(text)))).toBe(text);
    expect(textOfByteString('plain')).toBe('plain');
  });
});

describe('a file written from byte strings', () => {
  const pieces = [
    'a',
    'é',
    'à',
    '⚽',
    '😀',
    '"',
    ',',
    '\n',
    '\r\n',
    '\u2028',
    '\u00a0',
    '\u0085',
    ' ',
    '=',
    '-',
    '@',
    '+',
    '\t',
    'ß',
    '中',
    'e\u0301',
    '\\',
  ];

  it('is byte for byte the file written from decoded text, for many generated records', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = () => Array.from({ length: Math.floor(random() * 7) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    let checked = 0;
    for (let round = 0; round < 300; round += 1) {
      const data = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, k) => ({
        id: `r${round}-${k}${text()}`,
        homeTeam: text(),
        reasoning: random() < 0.5 ? text() : null,
        line: random() < 0.5 ? text() : Math.round(random() * 100) / 10 - 5,
        eventMetadata: random() < 0.5 ? { competition: text(), stage: text() } : null,
        odds: random() < 0.5 ? null : Math.round(random() * 1000) / 100,
        isPlayerPick: random() < 0.5,
      }));
      const body = Buffer.from(JSON.stringify({ data, page: { nextCursor: null, hasMore: false } }));
      if (!readableAsByteStrings(body)) continue;
      checked += 1;
      const decoded = JSON.parse(body.toString('utf8')).data as Pick[];
      const asBytes = JSON.parse(byteStringText(body)).data as Pick[];
      expect(Buffer.from(csvLines(asBytes), 'latin1')).toEqual(Buffer.from(csvLines(decoded), 'utf8'));
      expect(Buffer.from(jsonRecords(asBytes, round === 0), 'latin1')).toEqual(Buffer.from(jsonRecords(decoded, round === 0), 'utf8'));
    }
    expect(checked).toBeGreaterThan(250); // JSON.stringify writes no \u escapes for these pieces
  });

  it('would be wrong for the bodies the check refuses (so the check is what keeps it right)', () => {
    const body = Buffer.from('{"data":[{"id":"M\\u00fcnchen"}]}');
    const asBytes = JSON.parse(byteStringText(body)).data as Pick[];
    const decoded = JSON.parse(body.toString('utf8')).data as Pick[];
    expect(Buffer.from(csvLines(asBytes), 'latin1')).not.toEqual(Buffer.from(csvLines(decoded), 'utf8'));
    expect(readableAsByteStrings(body)).toBe(false);
  });
});

describe('an export walk', () => {
  const raw = (text: string) => new Response(text, { status: 200, headers: { 'Content-Type': 'application/json' } });
  const cursor = 'cürsor/2';
  const pages = [
    raw(
      JSON.stringify({
        data: [{ id: 'p1', homeTeam: 'Bayern München', reasoning: '=1+1, "quoted"' }],
        page: { nextCursor: cursor, hasMore: true },
        requestId: 'réq-1',
      }),
    ),
    raw('{"data":[{"id":"p2","homeTeam":"M\\u00fcnchen \\u2014 ⚽"}],"page":{"nextCursor":null,"hasMore":false},"requestId":"req-2"}'),
  ];
  const run = async (format: 'csv' | 'json') => {
    const stub = scriptedFetch(pages.map((page) => page.clone()));
    const client = createPicksClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: stub.fetch, retry: { maxRetries: 0 } });
    const requestIds: (string | null)[] = [];
    const started = await startExport(planExport('picks', new URLSearchParams(), format, null), {
      client,
      onPage: (_records, requestId) => requestIds.push(requestId),
    });
    const file = Buffer.from(await new Response(started.stream).arrayBuffer());
    return { file, urls: stub.calls.map((call) => call.url), requestIds };
  };

  it('writes the same CSV as decoded text would, asks for the next page with the cursor as text, reports request ids as text', async () => {
    const { file, urls, requestIds } = await run('csv');
    const expected =
      csvHeader() +
      csvLines([
        { id: 'p1', homeTeam: 'Bayern München', reasoning: '=1+1, "quoted"' },
        { id: 'p2', homeTeam: 'München — ⚽' },
      ]);
    expect(file.toString('utf8')).toBe(expected);
    expect(file).toEqual(Buffer.from(expected, 'utf8'));
    expect(urls[1]).toContain(`cursor=${encodeURIComponent(cursor)}`); // c%C3%BCrsor%2F2: UTF-8, as decoded text gives
    expect(requestIds).toEqual(['réq-1', 'req-2']);
  });

  it('writes JSON whose records are the upstream bytes, whichever way each page was read', async () => {
    const { file } = await run('json');
    const doc = JSON.parse(file.toString('utf8'));
    expect(doc.data).toEqual([
      { id: 'p1', homeTeam: 'Bayern München', reasoning: '=1+1, "quoted"' },
      { id: 'p2', homeTeam: 'München — ⚽' },
    ]);
    expect(file.toString('utf8')).toContain('"homeTeam":"M\\u00fcnchen \\u2014 ⚽"'); // copied as sent
  });

  it('is asked for by exports only: other walks get decoded text, unmarked', async () => {
    const stub = scriptedFetch([pages[0]!.clone(), pages[1]!.clone()]);
    const client = createPicksClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: stub.fetch, retry: { maxRetries: 0 } });
    const seen: string[] = [];
    for await (const page of client.walkPickPages({})) {
      expect(hasByteStrings(page)).toBe(false);
      seen.push(...page.data.map((pick) => String(pick.homeTeam)));
    }
    expect(seen).toEqual(['Bayern München', 'München — ⚽']);
    const marked: boolean[] = [];
    const again = scriptedFetch([pages[0]!.clone(), pages[1]!.clone()]);
    const exporting = createPicksClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: again.fetch, retry: { maxRetries: 0 } });
    for await (const page of exporting.walkPickPages({}, { byteStrings: true })) marked.push(hasByteStrings(page));
    expect(marked).toEqual([true, false]); // the second page holds \u escapes above 0x7f: decoded as usual
  });
});
