/** How an upstream request ended (lib/picks-api/client.ts): the metrics' label and feed health's tally. */
export const UPSTREAM_OUTCOMES = ['ok', '401', '403', '429', '4xx', '5xx', 'timeout', 'network'] as const;
export type UpstreamOutcome = (typeof UPSTREAM_OUTCOMES)[number];
