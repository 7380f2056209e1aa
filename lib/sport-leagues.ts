/**
 * Leagues narrowed by sport, for every filter form (records, coverage, deliveries): the licence lists its
 * leagues without saying whose sport they are, so the change feed's records say which leagues it has seen
 * under which sport.
 */

export interface Vocabulary {
  /** null: neither the licence nor the feed names any, so any value is taken. */
  sports: string[] | null;
  leagues: string[] | null;
  /** The leagues the feed has seen under each sport (its window); empty when it has seen nothing. */
  leaguesBySport: Record<string, string[]>;
  /** The licence could not be read just now (the Picks API failed or timed out): what is offered is not its list. */
  unread?: boolean;
}

/** Said beside a sport or league typed because the licence could not be read (not because it lists none). */
export const UNREAD_LICENCE_HINT =
  'The licence could not be read just now: type the name as the Picks API writes it, or reload to choose from it.';

/** The leagues to offer for a sport: those the feed saw under it, and listed ones it saw under no sport. */
export function leaguesFor(vocabulary: Vocabulary, sport: string): string[] | null {
  if (!vocabulary.leagues) return null;
  if (!sport) return vocabulary.leagues;
  const seen = new Set(Object.values(vocabulary.leaguesBySport).flat());
  const under = vocabulary.leaguesBySport[sport] ?? [];
  return vocabulary.leagues.filter((league) => under.includes(league) || !seen.has(league));
}

/** The leagues to offer for the sports ticked (a token's scope): every listed league when none is ticked. */
export function leaguesForSports(vocabulary: Vocabulary, sports: readonly string[]): string[] {
  if (sports.length === 0) return vocabulary.leagues ?? [];
  return [...new Set(sports.flatMap((sport) => leaguesFor(vocabulary, sport) ?? []))];
}
