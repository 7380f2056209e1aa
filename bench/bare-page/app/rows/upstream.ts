import { connection } from 'next/server';
import type { Row } from './cells';

/** Passed on to the upstream as they come (bench:load sends the portal's filters, already in the API's form). */
const FORWARDED = ['limit', 'sport', 'league', 'status', 'result', 'from', 'to'];

/** One upstream page of picks for the page's search parameters (50 unless a limit is asked), nothing checked. */
export async function upstreamRows(searchParams: Promise<Record<string, string | string[] | undefined>>): Promise<Row[]> {
  await connection();
  const params = await searchParams;
  const query = new URLSearchParams({ limit: '50' });
  for (const key of FORWARDED) if (typeof params[key] === 'string') query.set(key, params[key]);
  const res = await fetch(`${process.env.BARE_UPSTREAM}/api/v1/picks?${query.toString().replace(/\+/g, '%20')}`, {
    headers: { Authorization: `Bearer ${process.env.BARE_KEY}` },
    cache: 'no-store',
  });
  return ((await res.json()) as { data: Row[] }).data;
}
