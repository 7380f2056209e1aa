import type { TableCounts } from '@/lib/store/delivery-runs';

/** What a table delivery's run did, in words: `full load: 70 inserted, 0 updated, 0 marked deleted`. */
export const tableCounts = (t: TableCounts) =>
  `${t.mode === 'full' ? 'full load' : 'changes'}: ${t.inserted} inserted, ${t.updated} updated, ${t.marked} marked deleted`;
