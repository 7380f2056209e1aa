import { TableSkeleton } from '@/components/table-skeleton';

export default function Loading() {
  return <TableSkeleton />;
}
