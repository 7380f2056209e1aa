import { describe, expect, it } from 'vitest';
import { fitsQuickly } from '@/lib/picks-api/quick-check';
import { pickListSchema, pickSchema, resultListSchema } from '@/lib/picks-api/schemas';

/** The compiled quick check may only ever say "fits" where zod says so too (zod decides everything else). */

const record = {
  id: 'pk:1',
  sport: 'Football',
  league: 'Premier League',
  eventMetadata: { competition: 'EPL', stage: null, extra: 1 },
  line: -1.5,
  odds: 2.1,
  probability: null,
  isPlayerPick: false,
  widgetEventIdentity: null,
  somethingNew: { nested: [1, 'two'] },
};
const page = (data: unknown, paging: unknown = { nextCursor: 'c', hasMore: true }) => ({ data, page: paging, requestId: 'req_1' });

const MUTATIONS: [string, unknown][] = [
  ['a valid page', page([record, { id: null }])],
  ['no records', page([])],
  ['line as a label', page([{ ...record, line: 'o2.5' }])],
  ['absent fields', page([{}])],
  ['a string field as a number', page([{ ...record, sport: 7 }])],
  ['a number field as a string', page([{ ...record, odds: '2.1' }])],
  ['a boolean field as a string', page([{ ...record, isPlayerPick: 'yes' }])],
  ['line as a boolean', page([{ ...record, line: true }])],
  ['nested object as a string', page([{ ...record, eventMetadata: 'EPL' }])],
  ['nested field wrong', page([{ ...record, eventMetadata: { competition: 3 } }])],
  ['a record that is not an object', page(['pk:1'])],
  ['a record that is null', page([null])],
  ['data not an array', page({ 0: record })],
  ['no page block', { data: [record] }],
  ['hasMore missing', page([record], { nextCursor: null })],
  ['hasMore as a string', page([record], { hasMore: 'true' })],
  ['cursor as a number', page([record], { nextCursor: 5, hasMore: true })],
  ['requestId as a number', { ...page([record]), requestId: 9 }],
  ['a bare array (results)', [record]],
  ['null', null],
  ['a string', 'data'],
];

describe('quick check against zod', () => {
  it.each(MUTATIONS)('%s: says "fits" only where zod agrees, and agrees on fitting pages', (_, body) => {
    for (const schema of [pickListSchema, resultListSchema]) {
      const zod = schema.safeParse(body).success;
      const quick = fitsQuickly(schema, body);
      if (quick) expect(zod).toBe(true);
      // For a page of picks the two agree exactly; a bare /results array is zod's to transform.
      if (schema === pickListSchema) expect(quick).toBe(zod);
    }
  });

  it('single picks too', () => {
    expect(fitsQuickly(pickSchema, record)).toBe(true);
    expect(fitsQuickly(pickSchema, { ...record, odds: 'x' })).toBe(false);
    expect(pickSchema.safeParse({ ...record, odds: 'x' }).success).toBe(false);
  });
});
