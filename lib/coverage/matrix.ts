import { PICK_STATUSES } from '../picks-api/vocabulary';
import type { CoverageReport } from './aggregate';

/** The scope-against-delivery matrix as table rows: the coverage CSV's columns, one row per sport and league. */

export const MATRIX_COLUMNS = [
  'sport',
  'league',
  'licensed',
  'total',
  ...PICK_STATUSES,
  'other',
  'playerPicks',
  'playerShare',
  'lastPublishedAt',
  'emptyDays',
  'win',
  'loss',
  'push',
  'resultVoid',
];

export function matrixRows(report: CoverageReport): unknown[][] {
  return report.rows.map((r) => [
    r.sport,
    r.league,
    r.licensed === null ? 'not stated' : r.licensed ? 'yes' : 'no',
    r.total,
    ...PICK_STATUSES.map((status) => r.byStatus[status]),
    r.byStatus.other,
    r.playerPicks,
    r.total ? Number((r.playerPicks / r.total).toFixed(4)) : 0,
    r.lastPublishedAt,
    r.emptyDays.length,
    r.results.win,
    r.results.loss,
    r.results.push,
    r.results.void,
  ]);
}
