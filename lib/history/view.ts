import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import type { PageSearchParams } from '../picks-api/filters';
import { fromStore } from '../store';
import { countVersionsAt, firstVersionsAt } from '../store/history-at';
import type { Difference } from './moments';
import { eachDifference } from './moments';
import { parseHistoryQuery } from './query';
import { historyCoverage } from './coverage';
import { bodyOf } from '../vocabulary/version';

/** What /history shows: the form's coverage, then the set at a moment or the difference between two (the first rows of each). */

export const SHOWN = 200;
const DIFFERENCES_COUNTED = 5_000;

export type Coverage = Awaited<ReturnType<typeof historyCoverage>>;

export type HistoryView =
  | { ok: false; error: AppErrorJson; coverage: Coverage | null }
  | { ok: true; mode: 'none'; coverage: Coverage }
  | { ok: true; mode: 'asOf'; coverage: Coverage; query: string; asOf: string; count: number; records: Record<string, unknown>[] }
  | {
      ok: true;
      mode: 'diff';
      coverage: Coverage;
      query: string;
      from: string;
      to: string;
      counts: Record<Difference['change'], number>;
      /** Counting stopped there: there are more. */
      more: boolean;
      differences: Difference[];
    };

export async function historyView(params: PageSearchParams, now = Date.now()): Promise<HistoryView> {
  let coverage: Coverage | null = null;
  try {
    coverage = await historyCoverage();
    if (!['asOf', 'from', 'to'].some((key) => typeof params[key] === 'string' && params[key] !== ''))
      return { ok: true, mode: 'none', coverage };
    const query = parseHistoryQuery(params, now, coverage.sinceMs, false);
    const search = new URLSearchParams(Object.entries(query.sent).filter(([key]) => key !== 'format')).toString();
    if (query.mode === 'asOf') {
      const [count, rows] = await fromStore((db) =>
        Promise.all([countVersionsAt(db, query.asOfMs, query.filters), firstVersionsAt(db, query.asOfMs, query.filters, SHOWN)]),
      );
      return {
        ok: true,
        mode: 'asOf',
        coverage,
        query: search,
        asOf: new Date(query.asOfMs).toISOString(),
        count,
        records: rows.map((row) => bodyOf(row.body)),
      };
    }
    const counts = { added: 0, withdrawn: 0, changed: 0 };
    const differences: Difference[] = [];
    let seen = 0;
    const more = await fromStore(async (db) => {
      for await (const difference of eachDifference(db, query, query.filters)) {
        if ((seen += 1) > DIFFERENCES_COUNTED) return true;
        counts[difference.change] += 1;
        if (differences.length < SHOWN) differences.push(difference);
      }
      return false;
    });
    return {
      ok: true,
      mode: 'diff',
      coverage,
      query: search,
      from: new Date(query.fromMs).toISOString(),
      to: new Date(query.toMs).toISOString(),
      counts,
      more,
      differences,
    };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON(), coverage };
  }
}
