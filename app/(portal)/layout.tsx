import { AfterLoad } from '@/components/after-load';
import { AppHeader } from '@/components/app-header';
import { getPortalSession, redirectToLogin } from '@/lib/auth/session';

export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  const session = await getPortalSession();
  if (!session) return redirectToLogin('/');
  return (
    <>
      <AppHeader email={session.user.email} role={session.user.role} />
      <main className="mx-auto max-w-screen-2xl px-4 py-6">{children}</main>
      <AfterLoad />
    </>
  );
}
