import type { z } from 'zod';
import type {
  checkpointsSchema,
  eventSchema,
  pickPageSchema,
  receiptSchema,
  recordSchema,
  searchPageSchema,
  V1EventPage,
  V1Health,
  V1Me,
} from './shapes';

/**
 * One example of every answer API v1 gives, in its OpenAPI document (./openapi.ts) and on /developers' event
 * catalogue (./catalogue.ts): typed as the answers are built, and checked against the document's schemas by
 * tests/unit/openapi.test.ts and Redocly's example rule, so an example can never show what the API does not answer.
 */

type Record_ = z.infer<typeof recordSchema>;

export const EXAMPLE_REQUEST_ID = 'req_8f14e45fceea167a';

export const EXAMPLE_PICK: Record_ = {
  id: 'pk_01JC8ZK5T2',
  sport: 'Football',
  league: 'Northern Premier',
  roundOrWeek: 'Week 14',
  eventMetadata: { competition: 'Northern Premier League', stage: 'Regular season' },
  eventDescription: 'Kingston City FC v Harbour Town',
  eventDate: '2026-11-28T15:00:00Z',
  homeTeam: 'Kingston City FC',
  awayTeam: 'Harbour Town',
  marketType: 'Match result',
  selection: 'Kingston City FC',
  line: null,
  odds: 2.1,
  oddsFormat: 'decimal',
  bookmaker: 'Northbet',
  probability: 0.52,
  confidenceTier: 'medium',
  reasoning: 'Unbeaten in six at home; Harbour Town without their first-choice keeper.',
  status: 'upcoming',
  result: null,
  settledAt: null,
  publishedAt: '2026-11-25T08:30:00Z',
  attribution: 'Data: Licensed Sports Picks',
  isPlayerPick: false,
};

const SETTLED: Record_ = { ...EXAMPLE_PICK, status: 'settled', result: 'win', settledAt: '2026-11-28T16:55:00Z' };

export const EXAMPLE_PAGE: z.infer<typeof pickPageSchema> = {
  data: [EXAMPLE_PICK],
  page: { nextCursor: 'eyJ2IjoxLCJrIjoicGtfMDFKQzhaSzVUMiJ9', hasMore: true },
  requestId: EXAMPLE_REQUEST_ID,
};

export const EXAMPLE_RESULTS: z.infer<typeof pickPageSchema> = {
  data: [SETTLED],
  page: { nextCursor: null, hasMore: false },
  requestId: EXAMPLE_REQUEST_ID,
};

export const EXAMPLE_SEARCH: z.infer<typeof searchPageSchema> = {
  data: [EXAMPLE_PICK],
  page: { number: 1, size: 50, total: 1, lastPage: 1 },
  index: { lastPollAt: '2026-11-25T08:35:00Z', followedAt: '2026-11-25T08:35:02Z' },
  requestId: EXAMPLE_REQUEST_ID,
};

export const EXAMPLE_ME: V1Me = {
  partner: { name: 'Example Media' },
  licence: {
    id: 'lic_2026_example',
    status: 'active',
    sports: ['Football', 'Tennis'],
    leagues: ['Northern Premier', 'ATP Tour'],
    dateWindow: { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
    contentMode: 'full',
    channels: ['web', 'app'],
    content: ['picks', 'results', 'changes'],
    expiresAt: '2027-01-01T00:00:00.000Z',
  },
  token: { id: 'tok_4b1f0c2a9e7d', name: 'CMS import', expiresAt: '2027-06-01T00:00:00.000Z', ratePerMinute: 600, dailyRecords: 500_000 },
  requestId: EXAMPLE_REQUEST_ID,
};

export const EXAMPLE_HEALTH: V1Health = {
  status: 'ok',
  service: 'picks-partner-portal',
  version: 'v1',
  time: '2026-11-25T08:35:10.000Z',
  requestId: EXAMPLE_REQUEST_ID,
};

type Event = z.infer<typeof eventSchema>;
const hash = (seed: string) => `${seed}${'A'.repeat(43 - seed.length)}`;

/** One example of each event type, as the stream, a page and a webhook give it. */
export const EXAMPLE_EVENTS: Record<Event['type'], Event> = {
  'pick.published': {
    seq: 1041,
    type: 'pick.published',
    pickId: EXAMPLE_PICK.id,
    detectedAt: '2026-11-25T08:35:00.000Z',
    record: EXAMPLE_PICK,
    changes: null,
    prev: hash('n2v8Q'),
    hash: hash('Yc4kP'),
  },
  'pick.changed': {
    seq: 1042,
    type: 'pick.changed',
    pickId: EXAMPLE_PICK.id,
    detectedAt: '2026-11-27T10:05:00.000Z',
    record: { ...EXAMPLE_PICK, odds: 1.95 },
    changes: { odds: { before: 2.1, after: 1.95 } },
    prev: hash('Yc4kP'),
    hash: hash('Lr7dT'),
  },
  'pick.settled': {
    seq: 1043,
    type: 'pick.settled',
    pickId: EXAMPLE_PICK.id,
    detectedAt: '2026-11-28T17:00:00.000Z',
    record: { ...SETTLED, odds: 1.95 },
    changes: {
      status: { before: 'upcoming', after: 'settled' },
      result: { before: null, after: 'win' },
      settledAt: { before: null, after: '2026-11-28T16:55:00Z' },
    },
    prev: hash('Lr7dT'),
    hash: hash('Wm2sE'),
  },
  'pick.withdrawn': {
    seq: 1044,
    type: 'pick.withdrawn',
    pickId: 'pk_01JC90AB7Q',
    detectedAt: '2026-11-28T17:05:00.000Z',
    record: null,
    changes: null,
    prev: hash('Wm2sE'),
    hash: hash('Qa9uZ'),
  },
  'pick.restored': {
    seq: 1045,
    type: 'pick.restored',
    pickId: 'pk_01JC90AB7Q',
    detectedAt: '2026-11-28T17:10:00.000Z',
    record: { ...EXAMPLE_PICK, id: 'pk_01JC90AB7Q', selection: 'Draw', odds: 3.4, probability: 0.27 },
    changes: null,
    prev: hash('Qa9uZ'),
    hash: hash('Hb3xN'),
  },
};

export const EXAMPLE_EVENT_PAGE: V1EventPage = {
  data: [EXAMPLE_EVENTS['pick.changed'], EXAMPLE_EVENTS['pick.settled']],
  gap: null,
  page: { after: 1041, nextAfter: 1043, lastId: 1045, hasMore: true },
  requestId: EXAMPLE_REQUEST_ID,
};

/** The same events as server-sent events (Accept: text/event-stream), as the stream writes them. */
export const EXAMPLE_STREAM = [
  'retry: 3000',
  ': alive 2026-11-27T10:04:58.000Z; last poll 2026-11-27T10:04:30.000Z',
  '',
  ...[EXAMPLE_EVENTS['pick.changed'], EXAMPLE_EVENTS['pick.settled']].flatMap((event) => [
    `id: ${event.seq}`,
    `event: ${event.type}`,
    `data: ${JSON.stringify(event)}`,
    '',
  ]),
  '',
].join('\n');

export const EXAMPLE_RECEIPT: z.infer<typeof receiptSchema> = {
  receipt: {
    tokenId: 'tok_4b1f0c2a9e7d',
    from: 1041,
    to: 1045,
    count: 5,
    firstId: 1041,
    lastId: 1045,
    prev: hash('n2v8Q'),
    lastHash: hash('Hb3xN'),
    issuedAt: '2026-11-28T17:15:00.000Z',
  },
  jws: 'eyJhbGciOiJFUzI1NiIsImtpZCI6InBvcnRhbC0xIn0.eyJ0b2tlbklkIjoidG9rXzRiMWYwYzJhOWU3ZCJ9.c2lnbmF0dXJl',
  requestId: EXAMPLE_REQUEST_ID,
};

export const EXAMPLE_CHECKPOINTS: z.infer<typeof checkpointsSchema> = {
  data: [
    {
      from: 1,
      to: 1000,
      count: 1000,
      lastHash: hash('Tz6gR'),
      signedAt: '2026-11-20T03:00:00.000Z',
      jws: 'eyJhbGciOiJFUzI1NiIsImtpZCI6InBvcnRhbC0xIn0.eyJmcm9tIjoxLCJ0byI6MTAwMH0.c2lnbmF0dXJl',
    },
  ],
  requestId: EXAMPLE_REQUEST_ID,
};
