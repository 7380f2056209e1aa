import type { Metadata } from 'next';
import type { PageSearchParams } from '@/lib/filters';
import { RecordsPage } from '@/components/records/records-page';
import { requirePage } from '@/lib/auth/session';
import { toSearchParams } from '@/lib/paging';

export const metadata: Metadata = { title: 'Picks' };

export default async function PicksPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const session = await requirePage('browse', `/picks?${toSearchParams(params).toString()}`);
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
