import Link from 'next/link';
import type { ComponentProps } from 'react';

/**
 * The portal's only way to next/link: a client-side navigation, never a prefetch. Every portal page is
 * dynamic (a session, licensed data), so a prefetch brings back only the route's tree (about 270 bytes) yet
 * costs the server a request through the router and the layout (about 7 ms); the header's links
 * alone made a score of them on every page view (docs/adr/0003). A click fetches the page as before.
 */
export function PortalLink(props: Omit<ComponentProps<typeof Link>, 'prefetch'>) {
  return <Link {...props} prefetch={false} />;
}
