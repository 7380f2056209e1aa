import { PICK_STATUSES } from '../picks-api/vocabulary';
import type { CoverageReport } from './aggregate';

/** The scope-against-delivery matrix, the coverage CSV: named columns, one row per sport and league. */

type Row = CoverageReport['rows'][number];

const MATRIX: { header: string; value: (r: Row) => unknown }[] = [
  { header: 'sport', value: (r) => r.sport },
  { header: 'league', value: (r) => r.league },
  { header: 'licensed', value: (r) => (r.licensed === null ? 'not stated' : r.licensed ? 'yes' : 'no') },
  { header: 'total', value: (r) => r.total },
  ...PICK_STATUSES.map((status) => ({ header: status, value: (r: Row) => r.byStatus[status] })),
  { header: 'other', value: (r) => r.byStatus.other },
  { header: 'playerPicks', value: (r) => r.playerPicks },
  { header: 'playerShare', value: (r) => (r.total ? Number((r.playerPicks / r.total).toFixed(4)) : 0) },
  { header: 'lastPublishedAt', value: (r) => r.lastPublishedAt },
  { header: 'emptyDays', value: (r) => r.emptyDays.length },
  { header: 'win', value: (r) => r.results.win },
  { header: 'loss', value: (r) => r.results.loss },
  { header: 'push', value: (r) => r.results.push },
  { header: 'resultVoid', value: (r) => r.results.void },
];

export const MATRIX_COLUMNS = MATRIX.map((column) => column.header);

export function matrixRows(report: CoverageReport): unknown[][] {
  return report.rows.map((r) => MATRIX.map((column) => column.value(r)));
}
