import { connection } from 'next/server';
import Papa from 'papaparse';

/**
 * The bare CSV export `npm run bench:export` measures the portal's against: every record of the upstream walked at
 * 200 a page (the next page asked for while this one is written) and streamed as CSV by papaparse with the portal's
 * options (nested objects as dotted columns, formulae escaped), nothing checked, signed or kept — what a CSV
 * export made of a Next.js route handler and papaparse costs.
 */

type Page = { data: Record<string, unknown>[]; page: { nextCursor: string | null; hasMore: boolean } };

const options = { newline: '\r\n', escapeFormulae: /^[=+\-@\t\r\n]/, quotes: false } as const;

const pageAt = async (cursor: string | null): Promise<Page> => {
  const query = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await fetch(`${process.env.BARE_UPSTREAM}/api/v1/picks?${query}`, {
    headers: { Authorization: `Bearer ${process.env.BARE_KEY}` },
    cache: 'no-store',
  });
  if (!res.ok) throw new Error(`upstream HTTP ${res.status}`);
  return (await res.json()) as Page;
};

/** The dotted columns of a record: its fields, a nested object's as parent.child. */
const columnsOf = (record: Record<string, unknown>) =>
  Object.entries(record).flatMap(([key, value]) =>
    value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).map((child) => `${key}.${child}`) : [key],
  );

/** A column's reader, made once per export: its path is not split again for every record. */
const readerOf = (column: string) => {
  const [parent, child] = column.split('.') as [string, string | undefined];
  return (record: Record<string, unknown>): unknown => {
    const value = child === undefined ? record[parent] : (record[parent] as Record<string, unknown> | null | undefined)?.[child];
    return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  };
};

export async function GET() {
  await connection(); // at request time, never prerendered by the build
  const encoder = new TextEncoder();
  let next: Promise<Page> | null = pageAt(null);
  let readers: ((record: Record<string, unknown>) => unknown)[] | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!next) return controller.close();
      const page = await next;
      next = page.page.hasMore && page.page.nextCursor ? pageAt(page.page.nextCursor) : null;
      let text = '';
      if (!readers) {
        const columns = page.data[0] ? columnsOf(page.data[0]) : [];
        readers = columns.map(readerOf);
        text = `${Papa.unparse([columns], options)}\r\n`;
      }
      const read = readers;
      if (page.data.length > 0)
        text += `${Papa.unparse(
          page.data.map((record) => read.map((reader) => reader(record))),
          options,
        )}\r\n`;
      controller.enqueue(encoder.encode(text));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
}
