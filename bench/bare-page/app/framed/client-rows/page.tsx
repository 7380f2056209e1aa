import { upstreamRows } from '../../rows/upstream';
import { ClientRows } from './client-rows';

/**
 * The framed bare table drawn as the portal draws its own: one upstream page of picks handed as data to a client
 * component (@tanstack/react-table, sortable headers) that the server renders to HTML and the browser hydrates.
 * What this costs beyond `/framed/rows` (the same rows as server markup) is the framework's price of an
 * interactive table: the client component's render on the server and its rows sent again in the RSC payload.
 */

export default async function FramedClientRows({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <ClientRows rows={await upstreamRows(searchParams)} />;
}
