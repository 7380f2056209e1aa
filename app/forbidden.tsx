import { PortalLink } from '@/components/portal-link';
import { getPortalSession } from '@/lib/http/session';
import { linkClass } from '@/components/ui/text-link';

export default async function Forbidden() {
  const session = await getPortalSession();
  const body = (
    <div className="mx-auto max-w-xl py-10 text-center">
      <h1 className="text-2xl font-semibold">Not for your role</h1>
      <p className="mt-2 text-slate-600">Your portal role does not include this page. Ask an administrator if you need it.</p>
      <PortalLink href="/" className={linkClass('mt-6 inline-block font-medium')}>
        Back to the overview
      </PortalLink>
    </div>
  );
  // Signed in: the root layout's frame is around it already; signed out: on its own.
  return session ? body : <main className="px-4">{body}</main>;
}
