import { connection } from 'next/server';
import { ClientRows, type Row } from './client-rows';

/**
 * The framed bare table drawn as the portal draws its own: one upstream page of picks handed as data to a client
 * component (@tanstack/react-table, sortable headers) that the server renders to HTML and the browser hydrates.
 * What this costs beyond `/framed/rows` (the same rows as server markup) is the framework's price of an
 * interactive table: the client component's render on the server and its rows sent again in the RSC payload.
 */

const FORWARDED = ['limit', 'sport', 'league', 'status', 'result', 'from', 'to'];

export default async function FramedClientRows({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const params = await searchParams;
  const query = new URLSearchParams({ limit: '50' });
  for (const key of FORWARDED) if (typeof params[key] === 'string') query.set(key, params[key]);
  const res = await fetch(`${process.env.BARE_UPSTREAM}/api/v1/picks?${query.toString().replace(/\+/g, '%20')}`, {
    headers: { Authorization: `Bearer ${process.env.BARE_KEY}` },
    cache: 'no-store',
  });
  const body = (await res.json()) as { data: Row[] };
  return <ClientRows rows={body.data} />;
}
