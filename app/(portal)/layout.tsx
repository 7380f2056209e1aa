import { getPortalSession, redirectToLogin } from '@/lib/http/session';

/** Every page of the portal needs someone signed in; the frame around them is the root layout's. */
export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  if (!(await getPortalSession())) return redirectToLogin('/');
  return children;
}
