import { connection } from 'next/server';

/** A bare dynamic page: rendered per request, no upstream call; what /login and / are compared with. */
export default async function BarePage() {
  await connection();
  return (
    <main>
      <h1>Bare page</h1>
      <p>Rendered at {new Date().toISOString()}.</p>
    </main>
  );
}
