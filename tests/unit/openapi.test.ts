import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generated, V1_JSON, V1_TYPES } from '@/scripts/openapi';
import { answerChecker, webhookChecker } from '../support/openapi-check';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * API v1's OpenAPI document: what is committed (the document, the client's types) is what the schemas make today; a
 * kept linter (Redocly, recommended rules) finds nothing; the answer checker the contract suites use refuses a field
 * the document does not name; and the generated client makes a wrong parameter a type error.
 */

const run = promisify(execFile);

describe('API v1’s OpenAPI document', () => {
  it('is committed as the schemas make it, with the client’s types generated from it', async () => {
    const now = await generated();
    expect(await readFile(V1_JSON, 'utf8')).toBe(now.json);
    expect(await readFile(V1_TYPES, 'utf8')).toBe(now.types);
  });

  it('passes Redocly’s recommended rules with no error and no warning', { timeout: 60_000 }, async () => {
    const { stdout, stderr } = await run('npx', ['redocly', 'lint', V1_JSON, '--format', 'json'], { maxBuffer: 10_000_000 }).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { message: string }[] };
    expect(
      report.problems.map((p) => p.message),
      stderr,
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('describes answers closely enough that a field it does not name fails the check', async () => {
    const check = answerChecker(JSON.parse(await readFile(V1_JSON, 'utf8')));
    const page = {
      data: [{ id: 'p1', sport: 'Tennis', odds: 1.9, futureField: 'kept' }],
      page: { nextCursor: null, hasMore: false },
      requestId: 'req_1',
    };
    expect(check('GET', '/api/v1/picks?sport=Tennis', 200, page)).toBeNull();
    expect(check('GET', '/api/v1/picks', 200, { ...page, debug: true })).toMatch(/must NOT have additional properties/);
    expect(check('GET', '/api/v1/picks', 200, { ...page, page: { ...page.page, total: 3 } })).toMatch(/additional properties/);
    expect(check('GET', '/api/v1/picks', 200, { ...page, data: [{ id: 7 }] })).toMatch(/must be string/);
    const error = { error: { code: 'INVALID_FILTERS', message: 'One or more filters are invalid.', requestId: 'req_2' } };
    expect(check('GET', '/api/v1/picks/abc%3Ad', 404, error)).toBeNull();
    expect(check('GET', '/api/v1/picks', 400, { error: { ...error.error, hint: 'x' } })).toMatch(/additional properties/);
    expect(check('GET', '/api/v1/picks', 418, error)).toBe('GET /api/v1/picks does not list the status 418');
    expect(check('GET', '/api/v1/nothing', 200, {})).toBe('GET /api/v1/nothing is not in the document');
    expect(check('POST', '/api/v1/picks', 405, error)).toBeNull();
    expect(check('POST', '/api/v1/picks', 200, page)).toBe('POST /api/v1/picks is not in the document');
  });

  it('shows an example of every answer and every webhook, each what its schema describes', async () => {
    const document = JSON.parse(await readFile(V1_JSON, 'utf8')) as Json;
    const check = answerChecker(document);
    for (const [path, item] of Object.entries(document.paths as Json))
      for (const [status, response] of Object.entries((item as Json).get.responses as Json)) {
        const example = (response as Json).content['application/json'].example;
        expect(example, `${path} ${status}`).toBeDefined();
        expect(check('GET', path.replace('{id}', 'pk_1'), Number(status), example), `${path} ${status}`).toBeNull();
      }
    // The stream's own media type, beside the JSON page.
    const events = document.paths['/api/v1/events'].get.responses['200'].content;
    expect(Object.keys(events)).toEqual(['application/json', 'text/event-stream']);
    expect(events['text/event-stream'].example).toMatch(/^retry: 3000\n: alive .*\n\nid: 1042\nevent: pick\.changed\ndata: \{"seq":1042,/);
    // Every message a webhook receives, by type: the five events, the gap and the test event.
    const { EVENT_TYPES } = await import('@/lib/vocabulary/tokens');
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES, 'gap', 'webhook.test']);
    const hook = webhookChecker(document);
    for (const [type, entry] of Object.entries(document.webhooks as Json)) {
      const post = (entry as Json).post;
      expect(post.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const example = post.requestBody.content['application/json'].example;
      expect(hook(example), type).toBeNull();
      expect(hook({ ...example, data: { ...example.data, extra: 1 } }), type).toMatch(/must NOT have additional properties/);
    }
    expect(hook({ type: 'pick.archived', timestamp: 'x', data: {} })).toBe('the document has no webhook "pick.archived"');
  });

  it(
    'makes a parameter the API does not take, or a value it does not know, a type error in the generated client; a pick’s id a string',
    { timeout: 60_000 },
    async () => {
      const args = [
        'tsc',
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'ES2022',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
      ];
      // One compilation of both: the wrong one has exactly its two errors, the one reading ids as strings none.
      const result = await run('npx', [
        ...args,
        'tests/unit/fixtures/client-wrong-parameter.ts',
        'tests/unit/fixtures/client-pick-id.ts',
      ]).then(
        () => ({ stdout: '' }),
        (error: { stdout: string }) => error,
      );
      const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
      expect(errors).toHaveLength(2);
      expect(errors[0]).toMatch(/client-wrong-parameter\.ts\(5,.*'sports' does not exist/);
      expect(errors[1]).toMatch(/client-wrong-parameter\.ts\(6,.*"finished"/);
    },
  );
});
