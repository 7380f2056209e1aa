import { createServer, type IncomingHttpHeaders } from 'node:http';
import { startSmtp } from './smtp';

/** One request a receiver got. */
export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A webhook receiver on a free loopback port that keeps every request it gets (in `hits`, in order) and answers
 * with the status `answer` gives for its path (200 unless told).
 */
export async function startReceiver(answer: (path: string) => number = () => 200) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answer(req.url ?? '')).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What the alert tests send to: a real SMTP server (tests/support/smtp.ts) and a webhook receiver, closed together. */
export async function startAlertChannels(answer?: (path: string) => number) {
  const [smtp, receiver] = await Promise.all([startSmtp(), startReceiver(answer)]);
  return {
    inbox: smtp.inbox,
    smtpUrl: smtp.url,
    hits: receiver.hits,
    base: receiver.base,
    close: () => Promise.all([smtp.close(), receiver.close()]).then(() => undefined),
  };
}
