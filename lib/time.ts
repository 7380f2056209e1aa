/** Milliseconds in a UTC day: days here are always UTC (no daylight saving). */
export const DAY_MS = 86_400_000;
