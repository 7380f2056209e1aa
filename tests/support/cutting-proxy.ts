import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy between a consumer and the portal that cuts connections mid-answer: the n-th connection is cut
 * (both sockets destroyed, as a proxy or a network drop would) once `cutAfter[n]` bytes have gone back to the
 * consumer; connections past the list pass untouched.
 */
export async function startCuttingProxy(target: { host: string; port: number }, cutAfter: readonly number[]) {
  let connections = 0;
  const cuts: number[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const n = connections;
    connections += 1;
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let sent = 0;
    const limit = cutAfter[n];
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (limit !== undefined && sent + chunk.length > limit) {
        client.write(chunk.subarray(0, Math.max(0, limit - sent)));
        cuts.push(n);
        client.destroy();
        upstream.destroy();
        return;
      }
      sent += chunk.length;
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    cuts: () => [...cuts],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
