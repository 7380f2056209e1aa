import { z } from 'zod';

/** The kinds of value settings take, each with the message a wrong value gets (after the variable's name). */

export const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().positive().max(max).default(fallback);

export const wholeNumber = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** A secret something is signed or sealed with: a short one can be guessed offline. */
export const longSecret = optionalText.refine(
  (value) => value === undefined || Buffer.byteLength(value) >= 32,
  'must be at least 32 bytes (e.g. `openssl rand -base64 32`)',
);

/** A text variable read by a parser that throws what is wrong with it; the message follows the variable's name. */
export const parsedBy = <T>(parse: (value: string) => T, prefix = '') =>
  z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `${prefix}${(error as Error).message}` });
        return z.NEVER;
      }
    });

export const flag = z
  .enum(['', '0', '1', 'true', 'false'], { error: 'must be 1 or 0' })
  .optional()
  .transform((value) => value === '1' || value === 'true');

/** A flag that may be left unset (undefined), for a default that depends on other settings. */
export const optionalFlag = z
  .enum(['', '0', '1', 'true', 'false'], { error: 'must be 1 or 0' })
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value === '1' || value === 'true'));

/** A comma-separated list, each item checked by `valid`; every item that fails is named, with what was expected. */
export const commaList = (valid: RegExp, expected: string) =>
  parsedBy((value) => {
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const bad = items.filter((item) => !valid.test(item));
    if (bad.length > 0) throw new Error(bad.map((item) => `has "${item}", which is not ${expected}`).join('; '));
    return items;
  });
