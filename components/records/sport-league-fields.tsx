'use client';

import { useState } from 'react';
import { SelectField, TextField } from '@/components/ui/field';
import { leaguesFor, UNREAD_LICENCE_HINT, type Vocabulary } from '@/lib/sport-leagues';

/**
 * Sport and league of a filter form, chosen from the licence where it lists them (free text where it does
 * not), the leagues narrowed to the chosen sport's. A league that does not belong to a newly chosen sport
 * is let go, so the form never sends a pair that matches nothing.
 */
export function SportLeagueFields({ vocabulary, sport, league }: { vocabulary: Vocabulary; sport: string; league: string }) {
  const [chosenSport, setSport] = useState(sport);
  const [chosenLeague, setLeague] = useState(league);
  const leagues = leaguesFor(vocabulary, chosenSport);
  return (
    <>
      {vocabulary.sports?.length ? (
        <SelectField
          label="Sport"
          name="sport"
          options={vocabulary.sports}
          any="Any sport"
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
          options={leagues}
          any="Any league"
          defaultValue={league}
          value={chosenLeague}
          unlisted=" (not in licence)"
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
