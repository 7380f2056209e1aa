import Link from 'next/link';
import type { ComponentProps, MouseEvent } from 'react';

/**
 * The portal's only way to next/link: a client-side navigation, never a prefetch. Every portal page is
 * dynamic (a session, licensed data), so a prefetch brings back only the route's tree yet costs the
 * server a request through the router and the layout, for each link on the page (docs/adr/0003). A click
 * fetches the page as before.
 */
export function PortalLink(props: Omit<ComponentProps<typeof Link>, 'prefetch'>) {
  return <Link {...props} prefetch={false} />;
}

/**
 * For a long list of plain `<a href>` drawn on every page (the sidebar's destinations): one click handler they
 * share navigates client-side as PortalLink does, instead of a next/link component per link, which the server
 * renders on every page (docs/adr/0019). A click with a modifier key or another button, on a link with a target or
 * a download, or to another origin, is left to the browser (a new tab, a download).
 */
export function navigateOnClick(push: (href: string) => void) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    const link = event.currentTarget;
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if ((link.target && link.target !== '_self') || link.hasAttribute('download') || link.origin !== window.location.origin) return;
    event.preventDefault();
    push(link.pathname + link.search + link.hash);
  };
}
