import { PortalLink } from '@/components/portal-link';
import { linkClass } from '@/components/ui/text-link';

export default function PickNotFound() {
  return (
    <div className="mx-auto max-w-xl py-16 text-center" data-testid="pick-not-found">
      <h1 className="text-2xl font-semibold">No such pick</h1>
      <p className="mt-2 text-slate-600">No pick has that id, or it is not in your licence.</p>
      <PortalLink href="/picks" className={linkClass('mt-6 inline-block font-medium')}>
        Back to picks
      </PortalLink>
    </div>
  );
}
