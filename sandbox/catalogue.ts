/** The sandbox's world: sports, leagues, sides and markets the seeded picks are drawn from. */

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

const city = (names: string, suffixes: string[]) =>
  names.split(',').map((name, i) => `${name.trim()} ${suffixes[i % suffixes.length]}`.trim());

const matchday = (n: number) => `Matchday ${n}`;
const week = (n: number) => `Week ${n}`;

export const LEAGUES: LeagueDef[] = [
  { sport: 'Football', league: 'Premier League', competition: 'English Premier League', country: 'England', durationMin: 115, oddsFormat: 'decimal', rounds: matchday,
    sides: city('Arlington,Bramford,Castlegate,Dunmore,Eastbury,Fairhaven,Greywater,Holloway,Ironbridge,Kingsmere', ['United', 'City', 'Rovers', 'Athletic', 'FC']) },
  { sport: 'Football', league: 'La Liga', competition: 'LaLiga', country: 'Spain', durationMin: 115, oddsFormat: 'decimal', rounds: matchday,
    sides: city('Real Almena,Atlético Brava,Costa Azul,Deportivo Duero,Estrella,Fuentes,Granada Alta,Huelva Mar', ['CF', 'FC', 'CD', 'UD']) },
  { sport: 'Football', league: 'Serie A', competition: 'Serie A', country: 'Italy', durationMin: 115, oddsFormat: 'decimal', rounds: matchday,
    sides: city('Aurelia,Bergamo Nord,Calabria,Dolomiti,Etna,Fiorenza,Genova Porto,Lucca', ['Calcio', 'FC', 'AC', '']) },
  { sport: 'Football', league: 'Bundesliga', competition: 'Bundesliga', country: 'Germany', durationMin: 115, oddsFormat: 'decimal', rounds: matchday,
    sides: city('Altenburg,Borussia Elbe,Chemnitzer,Dortberg,Eintracht Fulda,Hansa Kiel,Isar München,Jena', ['FC', 'SV', 'TSV', '']) },
  { sport: 'Football', league: 'UEFA Champions League', competition: 'UEFA Champions League', country: null, durationMin: 115, oddsFormat: 'decimal',
    rounds: (n) => (n <= 6 ? `League phase MD${n}` : ['Round of 16', 'Quarter-final', 'Semi-final', 'Final'][n % 4] ?? 'Final'),
    sides: ['Arlington United', 'Real Almena CF', 'Aurelia Calcio', 'Borussia Elbe SV', 'Paris Lumière', 'Ajax Noord', 'Benfica Sul', 'Celtic Glen'] },
  { sport: 'Football', league: 'Trinidad & Tobago Premier League', competition: 'TT Premier League', country: 'Trinidad and Tobago', durationMin: 115, oddsFormat: 'decimal', rounds: matchday,
    sides: ['Port of Spain FC', 'San Fernando Stars', 'Arima & District', 'Chaguanas United', 'Tobago Waves', 'Point Fortin Civic'] },
  { sport: 'Basketball', league: 'NBA', competition: 'NBA Regular Season', country: 'USA', durationMin: 150, oddsFormat: 'american', rounds: week,
    sides: city('Atlanta,Boston,Chicago,Denver,Houston,Miami,Phoenix,Seattle,Toronto,Portland', ['Comets', 'Harbors', 'Winds', 'Peaks', 'Rockets', 'Heat Wave', 'Suns', 'Sonics', 'Northmen', 'Pines']) },
  { sport: 'Basketball', league: 'EuroLeague', competition: 'Turkish Airlines EuroLeague', country: null, durationMin: 130, oddsFormat: 'decimal', rounds: (n) => `Round ${n}`,
    sides: ['Olympia Athens', 'Partizan Beograd', 'Real Almena Baloncesto', 'Maccabi Yafo', 'Fenerbahçe Ada', 'Žalgiris Kaunas'] },
  { sport: 'American Football', league: 'NFL', competition: 'NFL', country: 'USA', durationMin: 200, oddsFormat: 'american', rounds: week,
    sides: city('Baltimore,Buffalo,Dallas,Denver,Green Bay,Kansas City,Las Vegas,New England', ['Ravens', 'Bisons', 'Stars', 'Broncs', 'Packers', 'Chiefs', 'Aces', 'Patriots']) },
  { sport: 'American Football', league: 'NCAA Football', competition: 'NCAA FBS', country: 'USA', durationMin: 210, oddsFormat: 'american', rounds: week,
    sides: ['State Tech', 'Lakeside University', 'Mountain A&M', 'Coastal College', 'Prairie State', 'River Valley'] },
  { sport: 'Tennis', league: 'ATP Tour', competition: 'ATP 1000', country: null, durationMin: 150, oddsFormat: 'decimal', individual: true, relativeLogo: true,
    rounds: (n) => ['R64', 'R32', 'R16', 'QF', 'SF', 'F'][n % 6] ?? 'F',
    sides: ['Luca Moretti', 'Jonas Berg', 'Carlos Ibarra', 'Daniil Orlov', 'Hugo Lefèvre', 'Kenji Sato', 'Tom Whitaker', 'Mateo Silva'] },
  { sport: 'Tennis', league: 'WTA Tour', competition: 'WTA 1000', country: null, durationMin: 130, oddsFormat: 'decimal', individual: true, relativeLogo: true,
    rounds: (n) => ['R64', 'R32', 'R16', 'QF', 'SF', 'F'][n % 6] ?? 'F',
    sides: ['Ana Kovač', 'Sofia Lindqvist', 'Maya Chen', 'Elena Petrova', 'Chloé Martin', 'Grace Okafor', 'Iga Nowicka', 'Lucía Romero'] },
  { sport: 'Ice Hockey', league: 'NHL', competition: 'NHL Regular Season', country: 'USA', durationMin: 160, oddsFormat: 'american', rounds: week,
    sides: city('Calgary,Detroit,Edmonton,Montréal,Nashville,Pittsburgh,Tampa Bay,Vancouver', ['Blaze', 'Wings', 'Oilmen', 'Royals', 'Predators', 'Steel', 'Bolts', 'Orcas']) },
  { sport: 'Baseball', league: 'MLB', competition: 'MLB Regular Season', country: 'USA', durationMin: 180, oddsFormat: 'american', rounds: (n) => `Series ${n}`,
    sides: city('Atlanta,Boston,Chicago,Houston,Los Angeles,New York,San Diego,St. Louis', ['Braves', 'Sox', 'Cubs', 'Astros', 'Angels', 'Empire', 'Padres', 'Cards']) },
  { sport: 'Cricket', league: 'Indian Premier League', competition: 'IPL', country: 'India', durationMin: 220, oddsFormat: 'decimal', rounds: (n) => `Match ${n}`,
    sides: ['Mumbai Mariners', 'Chennai Kings', 'Delhi Capitals XI', 'Kolkata Riders', 'Bengaluru Royals', 'Hyderabad Risers'] },
];

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
    { type: 'asian_handicap', pick: (rand, home) => { const base = Math.floor(rand() * 3) * 0.5; return { selection: `${home} -${base}/-${base + 0.5}`, line: `-${base}/-${base + 0.5}` }; } },
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
    { type: 'puck_line', pick: (rand, home, away) => (rand() < 0.5 ? { selection: `${home} -1.5`, line: -1.5 } : { selection: `${away} +1.5`, line: 1.5 }) },
    { type: 'total_goals', pick: ou(6, 1) },
    { type: 'player_points', player: true, pick: playerProp('points', 1) },
  ],
  Baseball: [
    { type: 'moneyline', pick: sideWin },
    { type: 'run_line', pick: (rand, home, away) => (rand() < 0.5 ? { selection: `${home} -1.5`, line: -1.5 } : { selection: `${away} +1.5`, line: 1.5 }) },
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
export const LAST_NAMES = ['Okoro', 'Fernández', 'Müller', 'Rossi', 'Kim', "O'Neill", 'Haddad', 'Novak', 'Sharma', 'Baptiste', 'Larsen', 'Dubois'];
export const NATIONALITIES = ['ESP', 'ITA', 'FRA', 'GER', 'SRB', 'JPN', 'GBR', 'BRA', 'USA', 'CAN', 'POL', 'NGA', 'CHN', 'CRO', 'SWE'];
