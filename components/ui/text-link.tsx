import type { ComponentProps } from 'react';
import { PortalLink } from '@/components/portal-link';

/** The portal's link in text: the brand colour, underlined on hover (in prose, add `underline`). */
const LINK = 'text-brand-700 hover:underline';

/** The class of a text link, with what the place adds. */
export const linkClass = (extra = ''): string => `${LINK} ${extra}`.trim();

/** A link to a portal page, styled as text (PortalLink: never a prefetch). */
export function TextLink({ className, ...props }: ComponentProps<typeof PortalLink>) {
  return <PortalLink {...props} className={linkClass(className)} />;
}
