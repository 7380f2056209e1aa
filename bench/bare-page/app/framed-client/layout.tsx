import { framedEmail } from '../framed/session';
import { ClientFrame } from './client-frame';

/**
 * The floor of a signed-in frame drawn as the portal draws its own (`bench:pages --framed-frame client`): the
 * same markup and session as ../framed, inside a client component that keeps the menu's, the folding's and the
 * account button's state, so the server renders it and the browser hydrates it.
 */
export default async function ClientFramedLayout({ children }: { children: React.ReactNode }) {
  return <ClientFrame email={await framedEmail()}>{children}</ClientFrame>;
}
