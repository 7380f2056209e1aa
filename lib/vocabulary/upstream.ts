/** How an upstream request ended (lib/picks-api/client.ts): the metrics' label and feed health's tally. */
export type UpstreamOutcome = 'ok' | '401' | '403' | '429' | '4xx' | '5xx' | 'timeout' | 'network';
