import { PortalLink } from '@/components/portal-link';
import { getPortalSession } from '@/lib/http/session';
import { connection } from 'next/server';
import { linkClass } from '@/components/ui/text-link';
import { PageTitle } from '@/components/ui/page-header';

export default async function NotFound() {
  // Rendered per request, not prerendered: a static page would carry no CSP nonce, and its scripts would be blocked.
  await connection();
  const session = await getPortalSession();
  const body = (
    <div className="mx-auto max-w-xl py-10 text-center">
      <PageTitle>Not found</PageTitle>
      <p className="mt-2 text-slate-600">There is nothing here, or the record is not in your licence.</p>
      <PortalLink href="/" className={linkClass('mt-6 inline-block font-medium')}>
        Back to the overview
      </PortalLink>
    </div>
  );
  // Signed in: the root layout's frame is around it already; signed out: on its own.
  return session ? body : <main className="px-4">{body}</main>;
}
