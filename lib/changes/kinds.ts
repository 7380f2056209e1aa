/** The kinds of change the feed records (docs/operations.md): shared by the server and the pages' forms. */
export const CHANGE_KINDS = ['new', 'status', 'result', 'updated', 'withdrawn', 'restored'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
