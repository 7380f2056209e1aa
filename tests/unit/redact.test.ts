import { describe, expect, it } from 'vitest';
import { createPicksClient } from '@/lib/picks-api/client';
import { REDACTED, redactSecrets, saysSecret } from '@/lib/picks-api/redact';

const KEY = 'pk_live_0123456789abcdef';

describe('/me redaction', () => {
  it('recognises names that say secret, token, password or key, in any case style', () => {
    const secretNames = [
      'apiKey',
      'api_key',
      'API-KEY',
      'partnerKey',
      'secret',
      'clientSecret',
      'access_token',
      'refreshTokens',
      'password',
      'dbPasswd',
      'signingKeys',
      'credentials',
      'Authorization',
    ];
    const plainNames = ['sports', 'leagues', 'keyboard', 'monkey', 'tokenised', 'secretary', 'status', 'contentMode', 'sportId'];
    expect(secretNames.filter((name) => !saysSecret(name))).toEqual([]);
    expect(plainNames.filter(saysSecret)).toEqual([]);
  });

  it('replaces values holding the key and fields named like secrets, at any depth, keeping the rest', () => {
    const me = {
      partner: 'Acme',
      apiKey: KEY,
      echo: `Bearer ${KEY}`,
      licence: { id: 'lic-1', leagues: ['Premier League'], webhook: { url: 'https://x.example', signingSecret: 'whsec_1' } },
      keys: [{ id: 'k1', last4: 'cdef' }],
      notes: [KEY, 'fine'],
      token: null,
    };
    expect(redactSecrets(me, KEY)).toEqual({
      partner: 'Acme',
      apiKey: REDACTED,
      echo: REDACTED,
      licence: { id: 'lic-1', leagues: ['Premier League'], webhook: { url: 'https://x.example', signingSecret: REDACTED } },
      keys: REDACTED,
      notes: [REDACTED, 'fine'],
      token: null,
    });
  });

  it('is applied by the client, so no page can show an unredacted /me', async () => {
    const body = { partner: 'Acme', key: KEY, contact: `ops (${KEY})`, requestId: 'req_1' };
    const fetchStub = (async () =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } })) as typeof fetch;
    const me = await createPicksClient({ baseUrl: 'https://api.example.com', apiKey: KEY, fetch: fetchStub }).me();
    expect(JSON.stringify(me)).not.toContain(KEY);
    expect(me).toMatchObject({ partner: 'Acme', key: REDACTED, contact: REDACTED });
  });

  it('redacts past the depth it walks, field names that hold the key, and credentials in upstream error messages', async () => {
    let deep: Record<string, unknown> = { secretValue: KEY, plain: 'fine' };
    for (let i = 0; i < 40; i += 1) deep = { level: deep };
    const seen = JSON.stringify(redactSecrets({ deep }, KEY));
    expect(seen).not.toContain(KEY);
    expect(seen).toContain(REDACTED);
    expect(redactSecrets({ [KEY]: 'lic-1', [`x-${KEY}`]: 2, ok: 3 }, KEY)).toEqual({ [REDACTED]: 'lic-1', [`${REDACTED} 2`]: 2, ok: 3 });
    const fetchStub = (async () =>
      new Response(
        JSON.stringify({
          error: {
            code: 'INVALID_FILTERS',
            message: `bad filter for key ${KEY} (Authorization: Bearer other-token-123)`,
            requestId: 'req_9',
          },
        }),
        { status: 400, headers: { 'Content-Type': 'application/json' } },
      )) as typeof fetch;
    const client = createPicksClient({ baseUrl: 'https://api.example.com', apiKey: KEY, fetch: fetchStub });
    const failure = await client.me().catch((error: Error) => error);
    expect(failure).toMatchObject({ code: 'INVALID_FILTERS' });
    expect((failure as Error).message).toBe(`bad filter for key ${REDACTED} (Authorization: Bearer ${REDACTED})`);
  });
});
