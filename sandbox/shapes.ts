/**
 * SANDBOX_SHAPES=varied: the same records and licences in the other shapes the spec allows and real data
 * takes, so that every page can be tried with them (tests/e2e/fit.spec.ts). `/me` (body shape "not shown")
 * holds its licences in a list beside extra fields and long values; names are long, or carry quotes, commas,
 * accents and markup. Ids, leagues and filters are unchanged: a walk or a filter means the same in both.
 */

export type Shapes = 'plain' | 'varied';

/** A deterministic choice per name, so a team has one name wherever it appears. */
const hash = (text: string) => [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);

const DRESSES = [
  (name: string) => `${name} Sociedad Deportiva y Cultural de la Comunidad Autónoma`,
  (name: string) => `${name} "Los Ñandúes", Asociación`,
  (name: string) => `${name} <b>Oficial</b> & Co.`,
  (name: string) => `Königlicher ${name} Fußball-Club, e.V.`,
  (name: string) => name,
];

export function variedName(name: string): string {
  return DRESSES[hash(name) % DRESSES.length]!(name);
}

/** A pick's names dressed (teams, the event's description, the competition); everything else as it was. */
export function variedPick(pick: Record<string, unknown>): Record<string, unknown> {
  const home = typeof pick.homeTeam === 'string' ? variedName(pick.homeTeam) : pick.homeTeam;
  const away = typeof pick.awayTeam === 'string' ? variedName(pick.awayTeam) : pick.awayTeam;
  const metadata = pick.eventMetadata as Record<string, unknown> | null | undefined;
  return {
    ...pick,
    homeTeam: home,
    awayTeam: away,
    eventDescription: typeof home === 'string' && typeof away === 'string' ? `${home} vs ${away}` : pick.eventDescription,
    eventMetadata:
      metadata && typeof metadata.competition === 'string'
        ? { ...metadata, competition: `${metadata.competition} — "Temporada 2026/27", Fase Regular` }
        : metadata,
  };
}

/** /me with its licence in a list, and what real accounts add around it. */
export function variedMe(me: { partner: { id: string; name: string }; licence: Record<string, unknown> }): Record<string, unknown> {
  return {
    account: {
      partner: { ...me.partner, name: `${me.partner.name} "Nordvind", Média & Sports Rights <Europe> Holdings, S.à r.l.` },
      region: 'eu-west-1',
      contacts: [{ role: 'commercial', name: 'Zoë O’Brien-Łukasiewicz', email: 'zoe.obrien-lukasiewicz@northwind-media-group.example' }],
    },
    licences: [
      {
        ...me.licence,
        name: 'Worldwide multi-sport data licence, all channels, including "in-play" — renewed annually, subject to Schedule 4, clauses 12.1–12.9',
        territories: ['GB', 'IE', 'DE', 'AT', 'CH', 'ES', 'PT', 'IT', 'FR', 'BE', 'NL', 'LU', 'DK', 'SE', 'NO', 'FI'],
        restrictionsNote:
          'Redistribution_to_affiliates_requires_prior_written_consent_of_the_licensor_and_must_be_notified_within_thirty_days_of_any_change',
      },
    ],
    features: { webhooks: false, replay: true, maxPageSize: 200 },
  };
}
