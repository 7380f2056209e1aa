import 'server-only';
import { z } from 'zod';
import { V1_QUERIES, queryString } from '../api-v1/queries';
import { eventsPageSchema, pickPageSchema, searchPageSchema, v1MeSchema } from '../api-v1/shapes';
import { historyWithin, recordHistory } from '../history/record';
import { getRecentLicence } from '../picks-api/portal';
import { facetsOf } from '../records/facets';
import { allowedBy, countInIndex, narrowedBy } from '../records/search';
import type { ApiToken } from '../store/tokens';
import { V1Error } from '../tokens/refusal';
import { coverageSchema, pickWithHistorySchema, type Coverage } from './answers';

/**
 * The MCP server's tools (docs/mcp.md). Each answers through API v1 itself (./server.ts passes `v1`): the token's
 * scope, content, rate and daily records apply exactly as to a REST client, and each tool's input is API v1's query
 * schema (lib/api-v1/queries.ts), so an assistant is offered what the OpenAPI document offers. Two answer from the
 * portal's own store within the token's scope: a pick's history (only the fields the token may read) and coverage
 * (the index's counts).
 */

type Json = Record<string, unknown>;

export interface ToolContext {
  token: ApiToken;
  /** API v1's answer to a GET of `path` for this token: its body, or a V1Error thrown with the refusal's words. */
  v1(path: string): Promise<Json>;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  answer(args: Json, context: ToolContext): Promise<Json>;
}

const FILTERS =
  'Filters as API v1 takes them: sport and league as the licence names them (get_licence lists them), status, result, and from/to as UTC times such as 2026-11-01T00:00:00Z.';

const listTool = (kind: 'picks' | 'results'): McpTool => ({
  name: `list_${kind}`,
  title: kind === 'picks' ? 'List picks' : 'List settled results',
  description: `One page of the licensed ${kind}, newest event first, read live from the data source (GET /api/v1/${kind}). ${FILTERS} For the next page call again with cursor set to page.nextCursor and the same filters; page.hasMore false ends the set. limit 1–200.`,
  input: V1_QUERIES[kind],
  output: pickPageSchema,
  answer: (args, { v1 }) => v1(`/api/v1/${kind}${queryString(args)}`),
});

export const MCP_TOOLS: McpTool[] = [
  {
    name: 'search_records',
    title: 'Search picks and results',
    description: `Find records by words — teams, players, competitions, events, selections, markets ("kingston city" finds "Kingston City FC"; case and accents do not matter) — or order the whole set by a column (sort, dir) and open any page by number. Answered from the portal's index of the licensed set; index.lastPollAt says how fresh it is. kind: picks (default) or results. ${FILTERS}`,
    input: V1_QUERIES.search,
    output: searchPageSchema,
    answer: (args, { v1 }) => v1(`/api/v1/search${queryString(args)}`),
  },
  listTool('picks'),
  listTool('results'),
  {
    name: 'get_pick',
    title: 'One pick and its history',
    description:
      'One pick by its id, read live, and every version of it the portal saw (oldest first) with what changed between them: odds moving, a status settling, a correction.',
    input: z.object({ id: z.string().min(1).max(200).meta({ description: 'The record’s id, as a list or search answered it.' }) }),
    output: pickWithHistorySchema,
    async answer(args, { v1 }) {
      const id = String(args.id);
      const answer = await v1(`/api/v1/picks/${encodeURIComponent(id)}`);
      const data = answer.data as Json;
      // Only the fields the token reads now: its content and the licence's content mode decided `data`.
      const history = historyWithin(await recordHistory(id), new Set(Object.keys(data)));
      return { data, history, requestId: answer.requestId };
    },
  },
  {
    name: 'get_licence',
    title: 'The licence as this token sees it',
    description:
      'What this token may read: the partner, the licence’s sports, leagues, date window and content mode narrowed to the token’s scope, its content (picks, results, changes), its rate a minute and records a day.',
    input: z.object({}),
    output: v1MeSchema,
    answer: (_args, { v1 }) => v1('/api/v1/me'),
  },
  {
    name: 'get_coverage',
    title: 'Coverage: what the token can read, counted',
    description:
      'How many records this token may read, by sport, league and status, from the portal’s index of the licensed set (index.followedAt says how fresh). kind: picks (default) or results.',
    input: z.object({ kind: V1_QUERIES.search.shape.kind }),
    output: coverageSchema,
    answer: (args, { token }) => coverage(token, args.kind === 'results' ? 'results' : 'picks'),
  },
  {
    name: 'changes_since',
    title: 'Changes since an event',
    description:
      'The change feed inside the token’s scope (its content must include "changes"): events after the event id given (0: the oldest kept; absent: from now), each a record published, changed, settled, voided or withdrawn, with what changed. Call again with after = page.nextAfter. A gap says events were pruned: read the records again.',
    input: V1_QUERIES.events,
    output: eventsPageSchema,
    answer: (args, { v1 }) => v1(`/api/v1/events${queryString(args)}`),
  },
];

async function coverage(token: ApiToken, kind: 'picks' | 'results'): Promise<Coverage> {
  const { scope } = token;
  if (!scope.content.includes(kind)) throw new V1Error(403, 'OUT_OF_SCOPE', `This token may not read ${kind}.`);
  const licence = await getRecentLicence();
  if (!licence.ok) throw new V1Error(403, 'LICENCE_UNAVAILABLE', 'Licence access is unavailable.');
  const allowed = narrowedBy(allowedBy(licence.value.summary), scope);
  const [facets, counted] = await Promise.all([facetsOf(kind, {}, undefined, allowed), countInIndex(kind, {}, allowed)]);
  const of = (name: string) =>
    (facets.facets.find((facet) => facet.name === name)?.values ?? []).map(({ value, count }) => ({ value, records: count }));
  return {
    kind,
    scope: { content: scope.content, sports: scope.sports, leagues: scope.leagues, from: scope.from, to: scope.to },
    records: facets.indexedAt === null ? 0 : counted.total,
    bySport: of('sport'),
    byLeague: of('league'),
    byStatus: of('status'),
    index: { followedAt: facets.indexedAt },
  };
}
