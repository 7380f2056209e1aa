'use client';

import { useState } from 'react';
import { SelectField, TextField } from '@/components/ui/field';
import { leaguesFor, UNREAD_LICENCE_HINT, type Vocabulary } from '@/lib/sport-leagues';
import type { FacetCounts } from '@/lib/records/facets';
import { counted, countedAny } from './facet-labels';

/**
 * Sport and league of a filter form, chosen from the licence where it lists them (free text where it does
 * not), the leagues narrowed to the chosen sport's. A league that does not belong to a newly chosen sport
 * is let go, so the form never sends a pair that matches nothing.
 */
export function SportLeagueFields({
  vocabulary,
  sport,
  league,
  counts = null,
}: {
  vocabulary: Vocabulary;
  sport: string;
  league: string;
  /** How many records of the current set each sport and league holds (the league's for the sport in the address). */
  counts?: FacetCounts | null;
}) {
  const [chosenSport, setSport] = useState(sport);
  const [chosenLeague, setLeague] = useState(league);
  const leagues = leaguesFor(vocabulary, chosenSport);
  return (
    <>
      {vocabulary.sports?.length ? (
        <SelectField
          label="Sport"
          name="sport"
          options={counted(vocabulary.sports, counts?.sport)}
          any={countedAny('Any sport', counts?.sport)}
          defaultValue={sport}
          unlisted=" (not in licence)"
          onChange={(event) => {
            const next = event.target.value;
            setSport(next);
            const offered = leaguesFor(vocabulary, next);
            if (offered && chosenLeague && !offered.includes(chosenLeague)) setLeague('');
          }}
        />
      ) : (
        <TextField
          label="Sport"
          name="sport"
          defaultValue={sport}
          maxLength={100}
          placeholder="Any sport"
          hint={vocabulary.unread ? UNREAD_LICENCE_HINT : undefined}
          onChange={(e) => setSport(e.target.value)}
        />
      )}
      {leagues?.length ? (
        <SelectField
          label="League"
          name="league"
          options={counted(leagues, chosenSport === sport ? counts?.league : undefined)}
          any={countedAny('Any league', chosenSport === sport ? counts?.league : undefined)}
          defaultValue={league}
          value={chosenLeague}
          unlisted={vocabulary.leagues?.includes(league) ? ` (not a league of ${chosenSport})` : ' (not in licence)'}
          onChange={(event) => setLeague(event.target.value)}
        />
      ) : (
        <TextField
          label="League"
          name="league"
          defaultValue={league}
          maxLength={100}
          placeholder="Any league"
          hint={vocabulary.unread ? UNREAD_LICENCE_HINT : undefined}
        />
      )}
    </>
  );
}
