import type { FilterKind } from './picks-api/filters';

/**
 * The date windows the records pages offer in one click, as UTC days in the URL (shareable, and what the
 * filters show). A page opened with no filters at all opens on its default: the next 7 days of picks
 * (what is coming), the last 7 days of results (what was settled).
 */

export interface DatePreset {
  id: 'today' | 'next7' | 'last7' | 'all';
  label: string;
  /** The from/to of the window (UTC days); none for "all". */
  range: { from: string; to: string } | null;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

export function datePresets(now = Date.now()): DatePreset[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return [
    { id: 'today', label: 'Today', range: { from: day(today), to: day(today) } },
    { id: 'next7', label: 'Next 7 days', range: { from: day(today), to: day(today + 6 * DAY_MS) } },
    { id: 'last7', label: 'Last 7 days', range: { from: day(today - 6 * DAY_MS), to: day(today) } },
    { id: 'all', label: 'All dates', range: null },
  ];
}

export const DEFAULT_PRESET: Record<FilterKind, DatePreset['id']> = { picks: 'next7', results: 'last7' };

/** The address a records page opens on when it is given no filters at all. */
export function defaultHref(kind: FilterKind, now = Date.now()): string {
  const preset = datePresets(now).find((p) => p.id === DEFAULT_PRESET[kind])!;
  return `/${kind}?${new URLSearchParams(preset.range!).toString()}`;
}

/** The address of a preset, keeping the other filters and dropping the page position. */
export function presetHref(kind: FilterKind, params: URLSearchParams, preset: DatePreset): string {
  const next = new URLSearchParams(params);
  for (const key of ['from', 'to', 'cursor', 'trail']) next.delete(key);
  if (preset.range) {
    next.set('from', preset.range.from);
    next.set('to', preset.range.to);
  } else next.set('limit', next.get('limit') ?? '50');
  return `/${kind}?${next.toString()}`;
}
