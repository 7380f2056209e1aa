import { describe, expect, it } from 'vitest';
import { AppError, ERROR_KINDS, errorTitle } from '@/lib/errors';
import { errorFromResponse } from '@/lib/picks-api/errors';

describe('the error vocabulary', () => {
  it('gives every code a status, a title and a safe default message', () => {
    for (const [code, kind] of Object.entries(ERROR_KINDS)) {
      expect(kind.status, code).toBeGreaterThanOrEqual(400);
      expect(kind.title.length, code).toBeGreaterThan(3);
      expect(kind.message.length, code).toBeGreaterThan(3);
    }
    expect(new AppError({ code: 'INVALID_FORMAT' })).toMatchObject({ status: 400, message: 'format must be csv or json.' });
    expect(errorTitle('SOMETHING_ELSE')).toBe(ERROR_KINDS.INTERNAL.title);
  });

  it('keeps an upstream 400 code beside INVALID_FILTERS instead of inventing a portal code', () => {
    const body = JSON.stringify({ error: { code: 'CURSOR_EXPIRED', message: 'The cursor has expired.', requestId: 'req_1' } });
    const error = errorFromResponse(new Response(body, { status: 400 }), body);
    expect(error.toJSON()).toMatchObject({
      status: 400,
      code: 'INVALID_FILTERS',
      upstreamCode: 'CURSOR_EXPIRED',
      message: 'The cursor has expired.',
      requestId: 'req_1',
    });
  });
});
