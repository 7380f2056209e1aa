import type { Metadata } from 'next';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { RecordsPage } from '../_records/records-page';
import { requirePage } from '@/lib/http/session';
import { toSearchParams } from '@/lib/paging';
import { redirect } from 'next/navigation';
import { defaultHref } from '@/lib/date-presets';

export const metadata: Metadata = { title: 'Picks' };

export default async function PicksPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const session = await requirePage('browse', `/picks?${toSearchParams(params).toString()}`);
  // No filters at all: the page's default window, stated in the address (lib/date-presets.ts).
  if (Object.keys(params).length === 0) redirect(defaultHref('picks'));
  return (
    <RecordsPage
      kind="picks"
      searchParams={params}
      session={session}
      title="Picks"
      intro="Qualified picks your licence delivers: upcoming, live, settled and void."
    />
  );
}
