import Link from 'next/link';
import { DEFAULT_PAGE_SIZE, PICK_RESULTS, PICK_STATUSES, type FilterKind } from '@/lib/filters';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const field = 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm shadow-sm';
const label = 'block text-xs font-medium uppercase tracking-wide text-slate-600';

/**
 * A plain GET form: the filters live in the URL (shareable, back button works) and it works without
 * JavaScript. Submitting starts again from the first page, so cursor and trail are not carried.
 */
export function FilterForm({ kind, values, sports, leagues }: {
  kind: FilterKind;
  values: Record<string, string>;
  sports: string[] | null;
  leagues: string[] | null;
}) {
  const action = kind === 'picks' ? '/picks' : '/results';
  const choice = (name: 'sport' | 'league', title: string, options: string[] | null) => (
    <div>
      <label htmlFor={`f-${name}`} className={label}>{title}</label>
      {options && options.length > 0 ? (
        <select id={`f-${name}`} name={name} defaultValue={values[name] ?? ''} className={field}>
          <option value="">Any {title.toLowerCase()}</option>
          {values[name] && !options.includes(values[name]) && <option value={values[name]}>{values[name]} (not in licence)</option>}
          {options.map((option) => <option key={option} value={option}>{option}</option>)}
        </select>
      ) : (
        <input id={`f-${name}`} name={name} defaultValue={values[name] ?? ''} maxLength={100} placeholder={`Any ${title.toLowerCase()}`} className={field} />
      )}
    </div>
  );
  const dateField = (name: 'from' | 'to', title: string, hint: string) => {
    const value = values[name] ?? '';
    return (
      <div>
        <label htmlFor={`f-${name}`} className={label}>{title}</label>
        <input id={`f-${name}`} name={name} type={value === '' || DATE_ONLY.test(value) ? 'date' : 'text'} defaultValue={value}
          aria-describedby="date-hint" title={hint} className={field} />
      </div>
    );
  };

  return (
    <form method="get" action={action} role="search" aria-label={`Filter ${kind}`} className="rounded-lg border border-slate-200 bg-white p-4">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4 xl:grid-cols-8">
        {choice('sport', 'Sport', sports)}
        {choice('league', 'League', leagues)}
        {kind === 'picks' && (
          <div>
            <label htmlFor="f-status" className={label}>Status</label>
            <select id="f-status" name="status" defaultValue={values.status ?? ''} className={field}>
              <option value="">Any status</option>
              {values.status && !(PICK_STATUSES as readonly string[]).includes(values.status) && <option value={values.status}>{values.status}</option>}
              {PICK_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </div>
        )}
        <div>
          <label htmlFor="f-result" className={label}>Result</label>
          <select id="f-result" name="result" defaultValue={values.result ?? ''} className={field}>
            <option value="">Any result</option>
            {values.result && !(PICK_RESULTS as readonly string[]).includes(values.result) && <option value={values.result}>{values.result}</option>}
            {PICK_RESULTS.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </div>
        {dateField('from', 'From (UTC day)', 'First UTC day included; an ISO 8601 timestamp also works')}
        {dateField('to', 'To (UTC day)', 'Last UTC day included; an ISO 8601 timestamp is an exclusive bound')}
        <div>
          <label htmlFor="f-limit" className={label}>Page size</label>
          <select id="f-limit" name="limit" defaultValue={values.limit ?? String(DEFAULT_PAGE_SIZE)} className={field}>
            {values.limit && !['25', '50', '100', '200'].includes(values.limit) && <option value={values.limit}>{values.limit}</option>}
            {['25', '50', '100', '200'].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </div>
        <div className="flex items-end gap-2">
          <button type="submit" className="rounded-md bg-brand-600 px-4 py-1.5 text-sm font-semibold text-white shadow hover:bg-brand-700">Apply</button>
          <Link href={action} className="rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100">Clear</Link>
        </div>
      </div>
      <p id="date-hint" className="mt-2 text-xs text-slate-500">
        Dates are UTC days: “From” includes that whole day from 00:00 UTC, “To” includes that whole day. Times in the table are shown in your local time zone (hover for UTC).
      </p>
    </form>
  );
}
