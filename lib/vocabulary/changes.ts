/** The kinds of change the feed records (docs/operations.md): shared by the server and the pages' forms. */
export const CHANGE_KINDS = ['new', 'status', 'result', 'updated', 'withdrawn', 'restored'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The fields a change entry carries so it can be shown without asking the upstream again. */
export const DISPLAY_FIELDS = [
  'sport',
  'league',
  'homeTeam',
  'awayTeam',
  'eventDate',
  'eventDescription',
  'marketType',
  'selection',
] as const;
export type Display = Partial<Record<(typeof DISPLAY_FIELDS)[number], string>>;

export interface Lifecycle {
  status: string | null;
  result: string | null;
  publishedAt: string | null;
}

/** What the feed keeps of a record: the compared fields, a digest of the rest, and its display fields. */
export interface Snapshot extends Lifecycle {
  id: string;
  digest: string;
  eventMs: number | null;
  display: Display;
  withdrawn: boolean;
}

export interface ChangeEntry {
  id: string;
  kinds: ChangeKind[];
  display: Display;
  before: Lifecycle | null;
  after: Lifecycle | null;
}

export interface Window {
  fromMs: number;
  toMs: number;
}

export interface Plan {
  entries: ChangeEntry[];
  /** Rows to write (new or changed snapshots, withdrawals); unchanged records are not rewritten. */
  upserts: Snapshot[];
  /** Rows to forget: their event date has left the window. */
  removals: string[];
}
