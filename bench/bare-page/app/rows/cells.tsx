/** What the bare tables draw in a row (./page.tsx as server markup, ../framed/client-rows in a client table). */

export type Row = Record<string, unknown> & { eventMetadata?: Record<string, unknown> };

export const text = (value: unknown) => (value === null || value === undefined ? '—' : String(value));

/** The event cell: two logos, the teams, the league, a detail link and the attribution (a call, not a component). */
export const eventCell = (r: Row) => (
  <>
    {/* eslint-disable-next-line @next/next/no-img-element */}
    <img src={String(r.homeTeamLogoUrl ?? '')} alt="" width={24} height={24} />
    {text(r.homeTeam)} vs {/* eslint-disable-next-line @next/next/no-img-element */}
    <img src={String(r.awayTeamLogoUrl ?? '')} alt="" width={24} height={24} />
    {text(r.awayTeam)}
    <div>{text(r.league)}</div>
    <a href={`/picks/${encodeURIComponent(String(r.id))}`}>Details</a>
    <p>{text(r.attribution)}</p>
  </>
);
