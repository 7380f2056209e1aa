const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * A UTC instant, rendered on the server in UTC (it knows no viewer's zone); <AfterLoad> rewrites it in the
 * viewer's local time with the zone named and puts the UTC value in the tooltip. No JavaScript per time, and
 * no attribute that would be repeated in every row (styles: globals.css).
 */
/**
 * e.g. "22 Nov 2026, 14:05 UTC" (day, short month, year, 24-hour time). Written out rather than through
 * Intl.DateTimeFormat, which showed in a 200-row page's server CPU profile (two times a row) and names
 * September differently in different ICU versions.
 */
export const formatUtc = (date: Date) =>
  `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${two(date.getUTCHours())}:${two(date.getUTCMinutes())} UTC`;

/** True for an instant at exactly midnight UTC: a day (a licence's expiry, a window's bound), not a moment. */
export const isUtcDay = (iso: string) => /T00:00(:00(\.0+)?)?(Z|\+00:00)$/.test(iso) || /^\d{4}-\d{2}-\d{2}$/.test(iso);

/** `day`: shown as the UTC day ("24 May 2027") and never moved into another zone (a day is the same day everywhere). */
export function UtcTime({ iso, day = false }: { iso: string | null | undefined; day?: boolean }) {
  if (!iso) return <span className="text-slate-500">—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  if (day)
    return (
      <time dateTime={date.toISOString().slice(0, 10)} data-day="">
        {date.getUTCDate()} {MONTHS[date.getUTCMonth()]} {date.getUTCFullYear()}
      </time>
    );
  return (
    // <AfterLoad> may rewrite the text before React hydrates a streamed table: that difference is expected.
    <time dateTime={date.toISOString()} suppressHydrationWarning>
      {formatUtc(date)}
    </time>
  );
}
