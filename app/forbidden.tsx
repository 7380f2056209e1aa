import { PortalLink } from '@/components/portal-link';
import { getPortalSession } from '@/lib/http/session';
import { linkClass } from '@/components/ui/text-link';
import { PageTitle } from '@/components/ui/page-header';

export default async function Forbidden() {
  const session = await getPortalSession();
  const body = (
    <div className="mx-auto max-w-xl py-10 text-center">
      <PageTitle>Not for your role</PageTitle>
      <p className="mt-2 text-slate-600">Your portal role does not include this page. Ask an administrator if you need it.</p>
      <PortalLink href="/" className={linkClass('mt-6 inline-block font-medium')}>
        Back to the overview
      </PortalLink>
    </div>
  );
  // Signed in: the root layout's frame is around it already; signed out: on its own.
  return session ? body : <main className="px-4">{body}</main>;
}
