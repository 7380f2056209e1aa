import type { Metadata } from 'next';
import type { PageSearchParams } from '@/lib/filters';
import { RecordsPage } from '@/components/records/records-page';
import { requirePage } from '@/lib/auth/session';
import { toSearchParams } from '@/lib/paging';

export const metadata: Metadata = { title: 'Results' };

export default async function ResultsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const session = await requirePage('browse', `/results?${toSearchParams(params).toString()}`);
  return (
    <RecordsPage
      kind="results"
      searchParams={params}
      session={session}
      title="Results"
      intro="Settled results your licence delivers, with their outcome."
    />
  );
}
