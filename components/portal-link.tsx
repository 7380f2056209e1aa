import Link from 'next/link';
import type { ComponentProps } from 'react';

/**
 * The portal's only way to next/link: a client-side navigation, never a prefetch. Every portal page is
 * dynamic (a session, licensed data), so a prefetch brings back only the route's tree yet costs the
 * server a request through the router and the layout, for each link on the page (docs/adr/0003). A click
 * fetches the page as before.
 */
export function PortalLink(props: Omit<ComponentProps<typeof Link>, 'prefetch'>) {
  return <Link {...props} prefetch={false} />;
}
