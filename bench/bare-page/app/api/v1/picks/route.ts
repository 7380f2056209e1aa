/**
 * The bare route handler `npm run bench:v1` measures the portal's /api/v1 against: a list request passed on to
 * the upstream as it came (its query and Authorization header) and the answer's bytes sent back whole, nothing
 * read, checked or counted — what any proxy made of a Next.js route handler costs a walk.
 */
export async function GET(request: Request) {
  const res = await fetch(`${process.env.BARE_UPSTREAM}/api/v1/picks${new URL(request.url).search}`, {
    headers: { Authorization: request.headers.get('authorization') ?? '' },
    cache: 'no-store',
  });
  return new Response(await res.arrayBuffer(), {
    status: res.status,
    headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' },
  });
}
