'use client';

import { percent } from '@/lib/records/summary';
import { Tile } from '@/components/overview/tile';
import { useSummary, type SummaryState } from '@/components/records/use-summary';

type Window = { from: string; to: string };
const query = (w: Window) => new URLSearchParams(w).toString();

/** What a tile shows while its figures are on their way, or when they could not be had. */
function pending(state: Exclude<SummaryState, { phase: 'done' }>) {
  return state.phase === 'loading' ? { value: '…', detail: 'Counting…' } : { value: '—', detail: `Not counted: ${state.message}` };
}

const more = (s: { complete: boolean; cap: number }) => (s.complete ? '' : ` (more than ${s.cap.toLocaleString('en-GB')})`);

/** Picks today and in the next 7 days (one walk of the week; today is its first day), asked for after the page loads. */
export function PicksTiles({ today, week }: { today: string; week: Window }) {
  const state = useSummary('picks', query(week));
  const done = state.phase === 'done' ? state.summary : null;
  const wait = state.phase === 'done' ? null : pending(state);
  return (
    <>
      <Tile
        id="picks-today"
        href={`/picks?${query({ from: today, to: today })}`}
        label="Picks today"
        value={done ? (done.byDay[today] ?? 0) : wait!.value}
        detail={done ? 'Events on this UTC day' : wait!.detail}
      />
      <Tile
        id="picks-week"
        href={`/picks?${query(week)}`}
        label="Picks, next 7 days"
        value={done ? done.records.toLocaleString('en-GB') : wait!.value}
        detail={done ? `${done.byStatus.upcoming} upcoming, ${done.byStatus.live} live${more(done)}` : wait!.detail}
      />
    </>
  );
}

/** Results settled in the last 7 days, with their hit rate. */
export function ResultsTile({ week }: { week: Window }) {
  const state = useSummary('results', query(week));
  const done = state.phase === 'done' ? state.summary : null;
  const wait = state.phase === 'done' ? null : pending(state);
  return (
    <Tile
      id="results-week"
      href={`/results?${query(week)}`}
      label="Results, last 7 days"
      value={done ? done.records.toLocaleString('en-GB') : wait!.value}
      detail={done ? `Hit rate ${percent(done.hitRate)} (${done.win}–${done.loss})${more(done)}` : wait!.detail}
    />
  );
}
