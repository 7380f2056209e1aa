/**
 * A scripted fetch for unit tests of fault cases the sandbox cannot produce. Records every URL asked for.
 * Once the script is used up, a URL asked for before gets the same answer again (an upstream that did not
 * move: what a walk's checks at its end ask, lib/picks-api/settle.ts); any other request is an error.
 */
export type Step = Response | Error | ((url: string, init: RequestInit) => Response | Promise<Response>);

export function scriptedFetch(steps: Step[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const answered = new Map<string, Response>();
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    const step = steps.shift();
    if (!step) {
      const again = answered.get(url);
      if (again) return again.clone();
      throw new Error(`unexpected request ${url}`);
    }
    if (step instanceof Error) throw step;
    const res = typeof step === 'function' ? await step(url, init) : step;
    if (res.ok) answered.set(url, res.clone());
    return res;
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    calls,
    remaining: () => steps.length,
    /** The requests of the walk itself, without its checks at the end (a URL asked for again). */
    walked: () => calls.filter((call, i) => calls.findIndex((c) => c.url === call.url) === i),
  };
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export const page = (ids: string[], nextCursor: string | null, hasMore = nextCursor !== null) =>
  json({ data: ids.map((id) => ({ id })), page: { nextCursor, hasMore }, requestId: 'req_test' });
