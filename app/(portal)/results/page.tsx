import type { Metadata } from 'next';
import { RecordsPage } from '@/components/records-page';
import { requirePage } from '@/lib/auth/session';
import { toSearchParams } from '@/lib/paging';

export const metadata: Metadata = { title: 'Results' };

export default async function ResultsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const session = await requirePage('browse', `/results?${toSearchParams(params).toString()}`);
  return <RecordsPage kind="results" searchParams={params} session={session} title="Results" intro="Settled results your licence delivers, with their outcome." />;
}
