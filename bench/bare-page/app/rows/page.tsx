import { eventCell, text } from './cells';
import { upstreamRows } from './upstream';

/**
 * The bare table `npm run bench:pages` measures the portal against: one upstream page of picks as a plain
 * server-rendered table with the content the portal's table shows (two logos, league, attribution, a detail
 * link, then date, sport/league/round, market, selection, line, odds, bookmaker, probability, tier and
 * status), with no session, no styles and no client component.
 */

export default async function BareRows({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const rows = await upstreamRows(searchParams);
  return (
    <table>
      <thead>
        <tr>
          {[
            'Event',
            'Date',
            'Sport / league / round',
            'Market',
            'Selection',
            'Line',
            'Odds',
            'Bookmaker',
            'Probability',
            'Tier',
            'Status',
          ].map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={String(r.id)}>
            <td>{eventCell(r)}</td>
            <td>{text(r.eventDate)}</td>
            <td>
              {text(r.sport)} / {text(r.league)} / {text(r.roundOrWeek)}
            </td>
            <td>{text(r.marketType)}</td>
            <td>{text(r.selection)}</td>
            <td>{text(r.line)}</td>
            <td>{text(r.odds)}</td>
            <td>{text(r.bookmaker)}</td>
            <td>{text(r.probability)}</td>
            <td>{text(r.confidenceTier)}</td>
            <td>{text(r.status)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
