import type { ZodType } from 'zod';
import type { AppError } from '../errors';

/**
 * A request's JSON object body for the portal's own APIs: JSON by its Content-Type, at most `maxBytes`, an
 * object; otherwise `refuse` builds the refusal naming `body` (each API's own code and wording).
 */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
  refuse: (details: Record<string, string>) => AppError,
  /** The refusal of a body over `maxBytes`, when the API has its own (default: `refuse` naming `body`). */
  tooLarge: () => AppError = () => refuse({ body: `is too large (at most ${maxBytes} bytes)` }),
): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
    throw refuse({ body: 'must be JSON (Content-Type: application/json)' });
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw tooLarge();
  try {
    const body: unknown = JSON.parse(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    return body as Record<string, unknown>;
  } catch {
    throw refuse({ body: 'is not a JSON object' });
  }
}

/**
 * The fields of `input` that each pass their own schema in `shape`, when the whole did not: a form's later checks
 * (an address, a binding) still run on what is right, so every problem is named in one answer.
 */
export function fieldsThatPass(shape: Record<string, ZodType>, input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== 'object') return {};
  return Object.fromEntries(
    Object.entries(input).flatMap(([key, value]) => {
      const checked = shape[key]?.safeParse(value);
      return checked?.success ? [[key, checked.data]] : [];
    }),
  );
}
