import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from './fixtures';
import { logFd, waitUntil } from './instances';

/** What events.spec.ts shares: its sandbox with test hooks, tokens made through the API, the JSON pages of events. */

export type Event = {
  seq: number;
  type: string;
  pickId: string;
  record: Record<string, unknown> | null;
  prev: string | null;
  hash: string;
};

/** A sandbox of the spec's own, its records around today and its test hooks on (clock, retractions, edits). */
export async function startHookedSandbox(port: number, key: string): Promise<ChildProcess> {
  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_TEST_HOOKS: '1',
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_NOW: new Date().toISOString(),
      SANDBOX_FULL_KEY: key,
    },
    stdio: ['ignore', 'ignore', logFd(`sandbox-${port}`)],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(async () => (await fetch(`${url}/api/v1/health`, { headers: { Authorization: `Bearer ${key}` } })).ok, 'the sandbox');
  return sandbox;
}

/** A token made by a signed-in admin through POST /api/tokens (`{ id, token }`). */
export async function postToken(origin: string, cookie: string, name: string, scope: Record<string, unknown>) {
  const res = await fetch(`${origin}/api/tokens`, {
    method: 'POST',
    headers: { cookie, origin, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      scope: { sports: [], leagues: [], ...scope },
      expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      ratePerMinute: 6_000,
      dailyRecords: 10_000_000,
    }),
  });
  const body = (await res.json()) as { id: string; token: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** Every event of a token after `after`, through the JSON pages. */
export async function eventPages(origin: string, token: string, after: number): Promise<Event[]> {
  const out: Event[] = [];
  for (let cursor = after; ;) {
    const res = await fetch(`${origin}/api/v1/events?after=${cursor}&limit=100`, { headers: { Authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data: Event[]; page: { nextAfter: number; hasMore: boolean } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    out.push(...body.data);
    if (!body.page.hasMore) return out;
    cursor = body.page.nextAfter;
  }
}

/** The change feed's own entries for a league (all when null), as people download them. */
export async function changeFeedIds(origin: string, cookie: string, league: string | null): Promise<string[]> {
  const res = await fetch(`${origin}/api/changes?format=json${league ? `&league=${encodeURIComponent(league)}` : ''}`, {
    headers: { cookie },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string }[] }).data.map((entry) => entry.id);
}

/** A sandbox test hook (clock, retractions, edits). */
export const sandboxHook = async (sandbox: string, name: string, body: unknown) =>
  expect((await fetch(`${sandbox}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) })).status).toBe(200);

/** "Poll now" as an admin, and the poll awaited through the store (`feed`: its change_feed row). */
export async function pollAndWait(origin: string, cookie: string, feed: () => { polls: number; outcome: string }): Promise<void> {
  const polls = feed().polls;
  const res = await fetch(`${origin}/api/changes/poll`, { method: 'POST', headers: { cookie, origin } });
  expect(res.status).toBe(202);
  await waitUntil(async () => feed().polls > polls && feed().outcome === 'complete', 'a poll', 60_000);
}
