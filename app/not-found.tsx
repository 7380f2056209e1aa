import { PortalLink } from '@/components/portal-link';
import { connection } from 'next/server';

export default async function NotFound() {
  // Rendered per request, not prerendered: a static page would carry no CSP nonce, and its scripts would be blocked.
  await connection();
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-slate-600">There is nothing here, or the record is not in your licence.</p>
      <PortalLink href="/" className="mt-6 inline-block font-medium text-brand-700 hover:underline">
        Back to the overview
      </PortalLink>
    </main>
  );
}
