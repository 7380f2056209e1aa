import { FilterBar, filterChips } from '@/components/ui/filter-bar';
import { SelectField, TextField } from '@/components/ui/field';
import { SportLeagueFields } from '@/components/records/sport-league-fields';
import type { Vocabulary } from '@/lib/sport-leagues';
import { DEFAULT_PAGE_SIZE, PICK_RESULTS, PICK_STATUSES, type FilterKind } from '@/lib/picks-api/filters';
import type { FacetCounts } from '@/lib/records/facets';
import { counted, countedAny } from './facet-labels';

const PAGE_SIZES = ['25', String(DEFAULT_PAGE_SIZE), '100', '200'];

const CHIP_LABELS = { q: 'Search', sport: 'Sport', league: 'League', status: 'Status', result: 'Result', from: 'From', to: 'To' };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** How the date fields are read (the fields point to it: the records pages show it under the table, coverage under the form). */
export const DATE_HINT =
  'Dates are UTC days: “From” includes that whole day from 00:00 UTC, “To” includes that whole day. Times in the table are shown in your own time zone (hover for UTC).';

/** The records' filters (FilterBar). Submitting starts again from the first page, so cursor and trail are not carried. */
export function FilterForm({
  kind,
  values,
  vocabulary,
  kept,
  counts = null,
}: {
  kind: FilterKind | 'coverage';
  /** How many records of the current set each choice holds (facets, from the index); null: not counted. */
  counts?: FacetCounts | null;
  values: Record<string, string>;
  /** A search's words and order, kept when the filters change. */
  kept?: Record<string, string>;
  /** The licence's sports and leagues, and which leagues the feed has seen under which sport. */
  vocabulary: Vocabulary;
}) {
  /** A date picker for a UTC day; a text field when the URL holds a whole timestamp, so it is not lost. */
  const dateField = (name: 'from' | 'to', title: string, hint: string) => {
    const value = values[name] ?? '';
    const type = value === '' || DATE_ONLY.test(value) ? 'date' : 'text';
    return <TextField label={title} name={name} type={type} defaultValue={value} aria-describedby="date-hint" title={hint} />;
  };

  return (
    <FilterBar
      action={`/${kind}`}
      label={kind === 'coverage' ? 'Coverage range and scope' : `Filter ${kind}`}
      grid="grid-cols-2 md:grid-cols-4 xl:grid-cols-8"
      chips={kind === 'coverage' ? undefined : filterChips(`/${kind}`, { ...values, ...kept }, CHIP_LABELS)}
      autoApply={kind !== 'coverage'}
      kept={kept}
      footer={
        kind === 'coverage' && (
          <p id="date-hint" className="mt-2 text-xs text-slate-500">
            {DATE_HINT}
          </p>
        )
      }
    >
      <SportLeagueFields vocabulary={vocabulary} sport={values.sport ?? ''} league={values.league ?? ''} counts={counts} />
      {kind === 'picks' && (
        <SelectField
          label="Status"
          name="status"
          options={counted(PICK_STATUSES, counts?.status)}
          any={countedAny('Any status', counts?.status)}
          defaultValue={values.status}
          unlisted=""
        />
      )}
      {kind !== 'coverage' && (
        <SelectField
          label="Result"
          name="result"
          options={counted(PICK_RESULTS, counts?.result)}
          any={countedAny('Any result', counts?.result)}
          defaultValue={values.result}
          unlisted=""
        />
      )}
      {dateField('from', 'From (UTC day)', 'First UTC day included; an ISO 8601 timestamp also works')}
      {dateField('to', 'To (UTC day)', 'Last UTC day included; an ISO 8601 timestamp is an exclusive bound')}
      {kind !== 'coverage' && (
        <SelectField
          label="Page size"
          name="limit"
          options={PAGE_SIZES}
          defaultValue={values.limit ?? String(DEFAULT_PAGE_SIZE)}
          unlisted=""
        />
      )}
    </FilterBar>
  );
}
