/** The sandbox's world: markets, bookmakers and names the seeded picks are drawn from (leagues: ./leagues.ts). */

export { LEAGUES } from './leagues';

export interface LeagueDef {
  sport: string;
  league: string;
  competition: string;
  country: string | null;
  sides: string[];
  /** Minutes from start to final whistle. */
  durationMin: number;
  oddsFormat: 'decimal' | 'american';
  rounds: (n: number) => string;
  /** Individual sports have players as sides and nationality per player. */
  individual?: boolean;
  /** Some leagues publish a relative competition logo path instead of an absolute URL. */
  relativeLogo?: boolean;
}

export interface MarketDef {
  type: string;
  /** Builds the selection and line from the home and away sides. */
  pick: (rand: () => number, home: string, away: string, player: string | null) => { selection: string; line: number | string | null };
  player?: boolean;
}

const ou = (base: number, spread: number) => (rand: () => number) => {
  const line = Math.round((base + (rand() - 0.5) * spread) * 2) / 2 + (Math.round(base) === base ? 0.5 : 0);
  return { selection: rand() < 0.5 ? `Over ${line}` : `Under ${line}`, line };
};
const sideWin = (rand: () => number, home: string, away: string) => ({ selection: rand() < 0.55 ? home : away, line: null });
const spread = (max: number) => (rand: () => number, home: string, away: string) => {
  const line = Math.round(rand() * max * 2) / 2 + 0.5;
  return rand() < 0.5 ? { selection: `${home} -${line}`, line: -line } : { selection: `${away} +${line}`, line };
};
const playerProp = (stat: string, base: number) => (rand: () => number, _h: string, _a: string, player: string | null) => {
  const line = Math.round(base * (0.6 + rand() * 0.8)) + 0.5;
  return { selection: `${player} over ${line} ${stat}`, line };
};

export const MARKETS: Record<string, MarketDef[]> = {
  Football: [
    { type: 'match_result', pick: (rand, home, away) => ({ selection: rand() < 0.2 ? 'Draw' : rand() < 0.6 ? home : away, line: null }) },
    { type: 'total_goals', pick: ou(2.5, 1) },
    { type: 'both_teams_to_score', pick: (rand) => ({ selection: rand() < 0.6 ? 'Yes' : 'No', line: null }) },
    // Asian handicap lines are quoted as split labels ("-0.5/-1"): the spec leaves line's type open.
    {
      type: 'asian_handicap',
      pick: (rand, home) => {
        const base = Math.floor(rand() * 3) * 0.5;
        return { selection: `${home} -${base}/-${base + 0.5}`, line: `-${base}/-${base + 0.5}` };
      },
    },
    { type: 'player_shots_on_target', player: true, pick: playerProp('shots on target', 1.5) },
  ],
  Basketball: [
    { type: 'moneyline', pick: sideWin },
    { type: 'point_spread', pick: spread(9) },
    { type: 'total_points', pick: ou(221, 20) },
    { type: 'player_points', player: true, pick: playerProp('points', 22) },
  ],
  'American Football': [
    { type: 'moneyline', pick: sideWin },
    { type: 'point_spread', pick: spread(10) },
    { type: 'total_points', pick: ou(44, 10) },
    { type: 'player_passing_yards', player: true, pick: playerProp('passing yards', 250) },
  ],
  Tennis: [
    { type: 'match_winner', pick: sideWin },
    { type: 'total_games', pick: ou(22, 6) },
    { type: 'set_handicap', pick: spread(1) },
  ],
  'Ice Hockey': [
    { type: 'moneyline', pick: sideWin },
    {
      type: 'puck_line',
      pick: (rand, home, away) => (rand() < 0.5 ? { selection: `${home} -1.5`, line: -1.5 } : { selection: `${away} +1.5`, line: 1.5 }),
    },
    { type: 'total_goals', pick: ou(6, 1) },
    { type: 'player_points', player: true, pick: playerProp('points', 1) },
  ],
  Baseball: [
    { type: 'moneyline', pick: sideWin },
    {
      type: 'run_line',
      pick: (rand, home, away) => (rand() < 0.5 ? { selection: `${home} -1.5`, line: -1.5 } : { selection: `${away} +1.5`, line: 1.5 }),
    },
    { type: 'total_runs', pick: ou(8.5, 2) },
  ],
  Cricket: [
    { type: 'match_winner', pick: sideWin },
    { type: 'top_team_batter', player: true, pick: (_r, home, _a, player) => ({ selection: `${player} (${home})`, line: null }) },
    { type: 'total_sixes', pick: ou(14, 6) },
  ],
};

export const BOOKMAKERS = ['Pinnacle', 'Bet365', 'William Hill', 'Unibet', 'DraftKings', 'FanDuel', 'Betfair Exchange'];
export const CHANNELS = ['api', 'web', 'app', 'broadcast'] as const;
export const FIRST_NAMES = ['Alex', 'Sam', 'Jordan', 'Kai', 'Noah', 'Luis', 'Marco', 'Ravi', 'Theo', 'Yusuf', 'Dani', 'Oskar'];
export const LAST_NAMES = [
  'Okoro',
  'Fernández',
  'Müller',
  'Rossi',
  'Kim',
  "O'Neill",
  'Haddad',
  'Novak',
  'Sharma',
  'Baptiste',
  'Larsen',
  'Dubois',
];
export const NATIONALITIES = ['ESP', 'ITA', 'FRA', 'GER', 'SRB', 'JPN', 'GBR', 'BRA', 'USA', 'CAN', 'POL', 'NGA', 'CHN', 'CRO', 'SWE'];
