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

export function UtcTime({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span className="text-slate-500">—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return (
    // <AfterLoad> may rewrite the text before React hydrates a streamed table: that difference is expected.
    <time dateTime={date.toISOString()} suppressHydrationWarning>
      {formatUtc(date)}
    </time>
  );
}
