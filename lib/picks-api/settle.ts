import 'server-only';
import { AppError } from '../errors';
import { plural } from '../plural';
import { encodingOf, textOfByteString } from './byte-strings';
import { IdSet } from './id-set';
import type { PickList } from './schemas';
import { forgetPageBytes, pageCursor } from './walk';

/**
 * A walk that stays true while the upstream moves. The spec's cursors are opaque and promise nothing about
 * records published or withdrawn meanwhile: an upstream whose cursors are offsets hands a record out twice
 * when one is published before the cursor, and skips one when one is withdrawn before it.
 *
 * Every record id is yielded once, the first version met (a streamed file cannot take a row back), and
 * the ids dropped are counted. The set is taken to have moved when a pass meets an id twice, or when pages
 * it read are different when asked again at its end (the first page, and up to two more of those it kept:
 * pages 2^k, the last two such; a record published or withdrawn before them since they were read shows
 * there). Then another pass walks the whole set again and yields only what was not yet seen. A pass that
 * sees nothing move settles the walk; after MAX_PASSES the walk ends unsettled, which is an error
 * (WALK_UNSETTLED) unless the caller asked only for the report.
 *
 * What it cannot see: a record withdrawn and another published in the same stretch of an offset walk,
 * with no id met twice and none of the pages asked again changed: docs/walks.md says what that means.
 */

export const MAX_PASSES = 3;

export interface WalkReport {
  /** Passes walked: 1 when nothing moved. */
  passes: number;
  /** Records met again and dropped (the first version was kept). */
  duplicatesDropped: number;
  /** Records the later passes added, that the first had missed. */
  addedByLaterPasses: number;
  /** Something moved under the walk (a later pass ran). */
  moved: boolean;
  /** The last pass saw nothing move. */
  settled: boolean;
  /** What showed the movement, in words (the first few). */
  signals: string[];
}

export const newWalkReport = (): WalkReport => ({
  passes: 0,
  duplicatesDropped: 0,
  addedByLaterPasses: 0,
  moved: false,
  settled: false,
  signals: [],
});

/** What the audit trail and manifests keep of a walk: null when nothing moved under it. */
export function walkSummary(report: WalkReport) {
  if (!report.moved && report.duplicatesDropped === 0) return null;
  const { passes, duplicatesDropped, addedByLaterPasses, settled, signals } = report;
  return { passes, duplicatesDropped, addedByLaterPasses, settled, signals: [...signals] };
}

/** One walk's report in a sentence, for logs, status lines and error messages. */
export function describeWalk(report: WalkReport): string {
  if (!report.moved && report.duplicatesDropped === 0) return 'nothing moved during the walk';
  const parts = [
    report.duplicatesDropped ? `${plural(report.duplicatesDropped, 'duplicate record')} dropped` : null,
    report.passes > 1 ? `${report.passes} passes, ${plural(report.addedByLaterPasses, 'record')} added by the later ones` : null,
    report.settled ? 'settled' : `did not settle after ${report.passes} passes`,
  ];
  return `the upstream moved during the walk (${report.signals.join('; ')}): ${parts.filter(Boolean).join(', ')}`;
}

export interface SettleOptions {
  report: WalkReport;
  /** 'report': an unsettled walk ends quietly, its report says so (the caller decides); default: it throws. */
  unsettled?: 'throw' | 'report';
  maxPasses?: number;
}

export async function* settledPages(
  pass: () => AsyncGenerator<PickList>,
  /** The ids of the page at this cursor, asked again now (null: the upstream would not say). */
  probe: (cursor: string | undefined) => Promise<(string | null)[] | null>,
  options: SettleOptions,
): AsyncGenerator<PickList> {
  const { report } = options;
  const maxPasses = options.maxPasses ?? MAX_PASSES;
  const seen = new IdSet();
  const signal = (what: string) => {
    if (report.signals.length < 5 && !report.signals.includes(what)) report.signals.push(what);
  };
  for (let n = 1; n <= maxPasses; n += 1) {
    report.passes = n;
    const inPass = n === 1 ? seen : new IdSet(seen.size);
    const kept = new Map<number, { cursor: string | undefined; ids: (string | null)[] }>();
    let moved = false;
    let index = 0;
    for await (const page of pass()) {
      index += 1;
      const data = page.data;
      const latin1 = encodingOf(page) === 'latin1';
      const ids: (string | null)[] | null = (index & (index - 1)) === 0 ? [] : null; // kept for the checks at the end
      let keep: typeof data | null = null; // made only when a record is dropped
      for (let i = 0; i < data.length; i += 1) {
        const id = idOf(data[i]!.id, latin1);
        ids?.push(id);
        let stays: boolean;
        if (id === null)
          stays = n === 1; // no id to tell it by: the first pass keeps it, later ones cannot
        else if (n > 1 && !inPass.add(id)) {
          stays = false;
          moved = true;
          signal('an id met twice');
        } else if (seen.add(id)) {
          stays = true;
          if (n > 1) report.addedByLaterPasses += 1;
        } else {
          stays = false;
          if (n === 1) {
            report.duplicatesDropped += 1;
            moved = true;
            signal('an id met twice');
          }
        }
        if (!stays && keep === null) keep = data.slice(0, i);
        else if (stays && keep !== null) keep.push(data[i]!);
      }
      if (ids) kept.set(index, { cursor: pageCursor(page), ids });
      if (keep !== null) {
        forgetPageBytes(page);
        page.data = keep;
      }
      if (n === 1 || page.data.length > 0) yield page;
    }
    // Asked again together: one round trip however many.
    const probes = probeIndexes(index);
    const answers = await Promise.all(probes.map((at) => probe(kept.get(at)!.cursor)));
    probes.forEach((at, k) => {
      const before = kept.get(at)!;
      const now = answers[k];
      if (now === null || now === undefined || now.length !== before.ids.length || now.some((id, i) => id !== before.ids[i])) {
        moved = true;
        signal(at === 1 ? 'the first page changed' : `page ${at} changed`);
      }
    });
    if (!moved) {
      report.settled = true;
      return;
    }
    report.moved = true;
  }
  report.settled = false;
  if (options.unsettled !== 'report')
    throw new AppError({
      code: 'WALK_UNSETTLED',
      message: `The Picks API kept changing during the walk: ${describeWalk(report)}. Nothing is called complete; try again later.`,
    });
}

/** The pages asked again at a pass's end: the first, and the last two powers of two before the last page. */
export function probeIndexes(pages: number): number[] {
  const out = new Set<number>([1]);
  for (let at = 2 ** Math.floor(Math.log2(Math.max(1, pages - 1))), k = 0; at > 1 && k < 2; at /= 2, k += 1) out.add(at);
  return [...out].filter((at) => at <= pages);
}

/** A record's id as text (an export's byte-string pages hold it as bytes), or null when it has none. */
function idOf(id: unknown, latin1: boolean): string | null {
  if (typeof id !== 'string' || id === '') return null;
  return latin1 && /[\x80-\xff]/.test(id) ? textOfByteString(id) : id;
}
