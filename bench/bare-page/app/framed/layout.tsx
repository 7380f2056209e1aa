import { FrameMarkup } from './frame-markup';
import { framedEmail } from './session';

/**
 * The floor of a signed-in frame, for `npm run bench:pages`: the page inside what the portal's frame draws
 * (./frame-markup.tsx) written the plain way, as one server component with no client component, and the person
 * read from the portal's session cookie with next-auth's own `decode` (the portal's secret, passed by the bench).
 * Nothing else: no store, no check of who may act, no preferences, no script after load. A cookie that does not
 * decode is an error, so the bench never times a frame drawn without its session.
 */

export default async function FramedLayout({ children }: { children: React.ReactNode }) {
  return <FrameMarkup email={await framedEmail()}>{children}</FrameMarkup>;
}
