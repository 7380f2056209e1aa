/** Empty runs in a row that call for the same attention as failures: the filters may match nothing any more. */
export const EMPTY_RUNS_ALERT = 3;

/** Re-settlements are counted over this many days (the overview and a delivery's page). */
export const RESETTLED_DAYS = 30;
