import { Button } from '@/components/ui/button';
import { SelectField, TextField } from '@/components/ui/field';

/**
 * One box that searches the whole licensed set (the portal's index: docs/search.md), with the order of the whole
 * set: a plain GET form, so a search is an address to share or bookmark. The filters in force go along unchanged.
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
    <form
      method="get"
      action={pathname}
      aria-label="Search the whole set"
      className="flex flex-wrap items-end gap-2"
      data-testid="search-form"
    >
      {Object.entries(kept).map(([key, value]) => (
        <input key={key} type="hidden" name={key} value={value} />
      ))}
      <div className="min-w-64 grow">
        <TextField
          label="Search every record"
          name="q"
          id="f-search"
          type="search"
          placeholder="A team, a player, an event, a competition, a selection…"
          defaultValue={values.q ?? ''}
          maxLength={200}
          autoComplete="off"
        />
      </div>
      <div className="w-44">
        <SelectField
          label="Order the whole set by"
          name="sort"
          id="f-sort"
          options={SORT_CHOICES}
          defaultValue={values.sort ?? ''}
          any="Newest event first"
        />
      </div>
      <div className="w-36">
        <SelectField
          label="Direction"
          name="dir"
          id="f-dir"
          options={[
            { value: 'desc', label: 'Descending' },
            { value: 'asc', label: 'Ascending' },
          ]}
          defaultValue={values.dir ?? 'desc'}
        />
      </div>
      <Button type="submit" tone="primary">
        Search
      </Button>
    </form>
  );
}
