/** The spec's lifecycle vocabulary (§3), the one list pages, filters, coverage and exports read. */
export const PICK_STATUSES = ['upcoming', 'live', 'settled', 'void'] as const;
export const PICK_RESULTS = ['win', 'loss', 'push', 'void'] as const;
