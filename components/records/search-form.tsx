import { Button } from '@/components/ui/button';
import { controlClass, Select } from '@/components/ui/field';

/**
 * One box that searches the whole licensed set (the portal's index: docs/search.md), with the whole set's order:
 * one line beside the page's title, so the table keeps its rows above the fold. A plain GET form, so a search is an
 * address to share or bookmark; the filters in force go along unchanged.
 */

export const SORT_CHOICES = [
  { value: 'relevance', label: 'Best match' },
  { value: 'eventDate', label: 'Event date' },
  { value: 'published', label: 'Published' },
  { value: 'settled', label: 'Settled' },
  { value: 'odds', label: 'Odds' },
  { value: 'probability', label: 'Probability' },
  { value: 'status', label: 'Status' },
  { value: 'result', label: 'Result' },
  { value: 'sport', label: 'Sport' },
  { value: 'league', label: 'League' },
] as const;

export function SearchForm({ pathname, kept, values }: { pathname: string; kept: Record<string, string>; values: Record<string, string> }) {
  return (
    <form method="get" action={pathname} aria-label="Search the whole set" className="flex items-center gap-1.5" data-testid="search-form">
      {Object.entries(kept).map(([key, value]) => (
        <input key={key} type="hidden" name={key} value={value} />
      ))}
      <input
        name="q"
        id="f-search"
        type="search"
        aria-label="Search every record"
        placeholder="Search every record: a team, a player…"
        defaultValue={values.q ?? ''}
        maxLength={200}
        autoComplete="off"
        className={controlClass(true, 'w-64')}
      />
      <Select
        name="sort"
        id="f-sort"
        aria-label="Order the whole set by"
        title="Order the whole set by"
        options={SORT_CHOICES}
        defaultValue={values.sort ?? ''}
        any="Order: newest event"
        compact
      />
      <Select
        name="dir"
        id="f-dir"
        aria-label="Direction"
        options={[
          { value: 'desc', label: '↓' },
          { value: 'asc', label: '↑' },
        ]}
        defaultValue={values.dir ?? 'desc'}
        compact
      />
      <Button type="submit" tone="primary" size="sm">
        Search
      </Button>
    </form>
  );
}
