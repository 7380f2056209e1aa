import { PortalFrame } from '@/components/portal-frame';
import { getPortalSession, redirectToLogin } from '@/lib/auth/session';

export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  const session = await getPortalSession();
  if (!session) return redirectToLogin('/');
  return <PortalFrame user={session.user}>{children}</PortalFrame>;
}
