import { AutoApply } from '@/components/ui/auto-apply';
import { Button } from '@/components/ui/button';
import { Select } from '@/components/ui/field';

/** The whole set's order (from the portal's index): a column and a direction, applied as they change. */

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

export function OrderForm({
  pathname,
  kept,
  sort,
  dir,
}: {
  pathname: string;
  kept: Record<string, string>;
  sort: string;
  dir: 'asc' | 'desc';
}) {
  return (
    <form
      method="get"
      action={pathname}
      aria-label="Order the whole set"
      className="flex items-center gap-1.5 text-sm"
      data-testid="order-form"
    >
      <AutoApply />
      {Object.entries(kept).map(([key, value]) => (
        <input key={key} type="hidden" name={key} value={value} />
      ))}
      <span className="text-slate-600">Whole set by</span>
      <Select name="sort" id="f-sort" aria-label="Order the whole set by" options={SORT_CHOICES} defaultValue={sort} compact />
      <Select
        name="dir"
        id="f-dir"
        aria-label="Direction"
        options={[
          { value: 'desc', label: 'descending' },
          { value: 'asc', label: 'ascending' },
        ]}
        defaultValue={dir}
        compact
      />
      <Button type="submit" size="sm" className="sr-only focus:not-sr-only">
        Order
      </Button>
    </form>
  );
}
