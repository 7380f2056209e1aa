import { PortalLink } from '@/components/portal-link';
import { DEFAULT_PAGE_SIZE, PICK_RESULTS, PICK_STATUSES, type FilterKind } from '@/lib/filters';

const PAGE_SIZES = ['25', String(DEFAULT_PAGE_SIZE), '100', '200'];

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const field = 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm shadow-sm';
const label = 'block text-xs font-medium uppercase tracking-wide text-slate-600';

/**
 * A plain GET form: the filters live in the URL (shareable, back button works) and it works without
 * JavaScript. Submitting starts again from the first page, so cursor and trail are not carried.
 */
export function FilterForm({
  kind,
  values,
  sports,
  leagues,
}: {
  kind: FilterKind | 'coverage';
  values: Record<string, string>;
  sports: string[] | null;
  leagues: string[] | null;
}) {
  const action = `/${kind}`;
  /** A select of known values; a value from the URL that is not among them still shows, so nothing is hidden. */
  const select = (name: string, title: string, options: readonly string[], any: string | null, note = '', fallback = '') => (
    <div>
      <label htmlFor={`f-${name}`} className={label}>
        {title}
      </label>
      <select id={`f-${name}`} name={name} defaultValue={values[name] ?? fallback} className={field}>
        {any !== null && <option value="">{any}</option>}
        {values[name] && !options.includes(values[name]) && (
          <option value={values[name]}>
            {values[name]}
            {note}
          </option>
        )}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
  const choice = (name: 'sport' | 'league', title: string, options: string[] | null) =>
    options && options.length > 0 ? (
      select(name, title, options, `Any ${title.toLowerCase()}`, ' (not in licence)')
    ) : (
      <div>
        <label htmlFor={`f-${name}`} className={label}>
          {title}
        </label>
        <input
          id={`f-${name}`}
          name={name}
          defaultValue={values[name] ?? ''}
          maxLength={100}
          placeholder={`Any ${title.toLowerCase()}`}
          className={field}
        />
      </div>
    );
  const dateField = (name: 'from' | 'to', title: string, hint: string) => {
    const value = values[name] ?? '';
    return (
      <div>
        <label htmlFor={`f-${name}`} className={label}>
          {title}
        </label>
        <input
          id={`f-${name}`}
          name={name}
          type={value === '' || DATE_ONLY.test(value) ? 'date' : 'text'}
          defaultValue={value}
          aria-describedby="date-hint"
          title={hint}
          className={field}
        />
      </div>
    );
  };

  return (
    <form
      method="get"
      action={action}
      role="search"
      aria-label={kind === 'coverage' ? 'Coverage range and scope' : `Filter ${kind}`}
      className="rounded-lg border border-slate-200 bg-white p-4"
    >
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4 xl:grid-cols-8">
        {choice('sport', 'Sport', sports)}
        {choice('league', 'League', leagues)}
        {kind === 'picks' && select('status', 'Status', PICK_STATUSES, 'Any status')}
        {kind !== 'coverage' && select('result', 'Result', PICK_RESULTS, 'Any result')}
        {dateField('from', 'From (UTC day)', 'First UTC day included; an ISO 8601 timestamp also works')}
        {dateField('to', 'To (UTC day)', 'Last UTC day included; an ISO 8601 timestamp is an exclusive bound')}
        {kind !== 'coverage' && select('limit', 'Page size', PAGE_SIZES, null, '', String(DEFAULT_PAGE_SIZE))}
        <div className="flex items-end gap-2">
          <button type="submit" className="rounded-md bg-brand-600 px-4 py-1.5 text-sm font-semibold text-white shadow hover:bg-brand-700">
            Apply
          </button>
          <PortalLink href={action} className="rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100">
            Clear
          </PortalLink>
        </div>
      </div>
      <p id="date-hint" className="mt-2 text-xs text-slate-500">
        Dates are UTC days: “From” includes that whole day from 00:00 UTC, “To” includes that whole day. Times in the table are shown in
        your local time zone (hover for UTC).
      </p>
    </form>
  );
}
