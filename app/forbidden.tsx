import { PortalLink } from '@/components/portal-link';

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Not for your role</h1>
      <p className="mt-2 text-slate-600">Your portal role does not include this page. Ask an administrator if you need it.</p>
      <PortalLink href="/" className="mt-6 inline-block font-medium text-brand-700 hover:underline">
        Back to the overview
      </PortalLink>
    </main>
  );
}
