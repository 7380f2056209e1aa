const utcFormat = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

/**
 * A UTC instant, rendered on the server in UTC (it knows no viewer's zone); <AfterLoad> rewrites it in the
 * viewer's local time with the zone named and puts the UTC value in the tooltip. No JavaScript per time, and
 * no attribute that would be repeated in every row (styles: globals.css).
 */
export const formatUtc = (date: Date) => `${utcFormat.format(date)} UTC`;

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
