import 'server-only';
import { getConfig } from '../config';
import { clientAddressFrom } from '../net/addresses';
import { peerHeaderFromServer } from '../process-state';

/**
 * The address a request comes from. `scripts/portal-server.mjs` (what `npm start` runs) writes the
 * socket's peer address into PEER_HEADER on every request, overwriting whatever a client sent, and
 * marks the process so; X-Forwarded-For is only believed from TRUSTED_PROXIES. Under any other server
 * the peer is unknown and every request counts as one address (safe, never spoofable).
 */
export const PEER_HEADER = 'x-portal-peer-address';

const marked = () => peerHeaderFromServer() === PEER_HEADER;

export function clientAddress(headers: Headers | Record<string, unknown> | undefined): string {
  const read = (name: string): string | null => {
    const value = headers instanceof Headers ? headers.get(name) : headers?.[name];
    return typeof value === 'string' ? value : null;
  };
  return clientAddressFrom(marked() ? read(PEER_HEADER) : null, read('x-forwarded-for'), getConfig().TRUSTED_PROXIES.list);
}
