import { Button } from '@/components/ui/button';
import { controlClass } from '@/components/ui/field';

/**
 * One box that searches the whole licensed set (the portal's index: docs/search.md), on the line of the page's
 * title, so the table keeps its rows above the fold. A plain GET form, so a search is an address to share or
 * bookmark; the filters in force and the whole set's order (./order-form.tsx) go along unchanged.
 */
export function SearchForm({ pathname, kept, q }: { pathname: string; kept: Record<string, string>; q: string }) {
  return (
    <form
      method="get"
      action={pathname}
      aria-label="Search the whole set"
      className="flex flex-wrap items-center gap-1.5"
      data-testid="search-form"
    >
      {Object.entries(kept).map(([key, value]) => (
        <input key={key} type="hidden" name={key} value={value} />
      ))}
      <input
        name="q"
        id="f-search"
        type="search"
        aria-label="Search every record"
        placeholder="Search every record…"
        title="Teams, players, events, competitions, markets, selections: case, accents and parts of words are all found"
        defaultValue={q}
        maxLength={200}
        autoComplete="off"
        className={controlClass(true, 'min-w-0 flex-1 sm:w-52 sm:flex-none')}
      />
      <Button type="submit" tone="primary">
        Search
      </Button>
    </form>
  );
}
