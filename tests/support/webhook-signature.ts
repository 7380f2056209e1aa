import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a webhook receiver does, written from the documented rule (docs/security.md), not from the
 * portal's code: HMAC-SHA256 over `v2\n<timestamp>\n<delivery>\n<file>\n<manifest header>\n` + body.
 */
export function receiverAccepts(secret: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const header = (name: string) => String(headers[name] ?? '');
  const signed = `v2\n${header('x-picks-timestamp')}\n${header('x-picks-delivery')}\n${header('x-picks-file')}\n${header('x-picks-manifest')}\n`;
  const expected = Buffer.from(`v2=${createHmac('sha256', secret).update(signed).update(body).digest('hex')}`);
  const got = Buffer.from(header('x-picks-signature'));
  return got.length === expected.length && timingSafeEqual(got, expected);
}
