/** A scripted fetch for unit tests of fault cases the sandbox cannot produce. Records every URL asked for. */
export type Step = Response | Error | ((url: string, init: RequestInit) => Response | Promise<Response>);

export function scriptedFetch(steps: Step[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    const step = steps.shift();
    if (!step) throw new Error(`unexpected request ${url}`);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(url, init);
    return step;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls, remaining: () => steps.length };
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export const page = (ids: string[], nextCursor: string | null, hasMore = nextCursor !== null) =>
  json({ data: ids.map((id) => ({ id })), page: { nextCursor, hasMore }, requestId: 'req_test' });
