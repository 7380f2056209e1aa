import { PortalLink } from '@/components/portal-link';
import { linkClass } from '@/components/ui/text-link';
import { PageTitle } from '@/components/ui/page-header';

export default function PickNotFound() {
  return (
    <div className="mx-auto max-w-xl py-16 text-center" data-testid="pick-not-found">
      <PageTitle>No such pick</PageTitle>
      <p className="mt-2 text-slate-600">No pick has that id, or it is not in your licence.</p>
      <PortalLink href="/picks" className={linkClass('mt-6 inline-block font-medium')}>
        Back to picks
      </PortalLink>
    </div>
  );
}
