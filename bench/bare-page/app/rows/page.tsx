import { connection } from 'next/server';

/**
 * The bare table `npm run bench:pages` measures the portal against: one upstream page of picks as a plain
 * server-rendered table with the content the portal's table shows (two logos, league, attribution, a detail
 * link, then date, sport/league/round, market, selection, line, odds, bookmaker, probability, tier and
 * status), with no session, no styles and no client component.
 */

type Row = Record<string, unknown> & { eventMetadata?: Record<string, unknown> };

const text = (value: unknown) => (value === null || value === undefined ? '—' : String(value));

/** Passed on to the upstream as they come (bench:load sends the portal's filters, already in the API's form). */
const FORWARDED = ['limit', 'sport', 'league', 'status', 'result', 'from', 'to'];

export default async function BareRows({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const params = await searchParams;
  const query = new URLSearchParams({ limit: '50' });
  for (const key of FORWARDED) if (typeof params[key] === 'string') query.set(key, params[key]);
  const res = await fetch(`${process.env.BARE_UPSTREAM}/api/v1/picks?${query.toString().replace(/\+/g, '%20')}`, {
    headers: { Authorization: `Bearer ${process.env.BARE_KEY}` },
    cache: 'no-store',
  });
  const body = (await res.json()) as { data: Row[] };
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
        {body.data.map((r) => (
          <tr key={String(r.id)}>
            <td>
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img src={String(r.homeTeamLogoUrl ?? '')} alt="" width={24} height={24} />
              {text(r.homeTeam)} vs {/* eslint-disable-next-line @next/next/no-img-element */}
              <img src={String(r.awayTeamLogoUrl ?? '')} alt="" width={24} height={24} />
              {text(r.awayTeam)}
              <div>{text(r.league)}</div>
              <a href={`/picks/${encodeURIComponent(String(r.id))}`}>Details</a>
              <p>{text(r.attribution)}</p>
            </td>
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
