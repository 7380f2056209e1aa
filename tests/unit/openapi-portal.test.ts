import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { portalDocument } from '@/lib/openapi/portal';
import { PORTAL_OPERATIONS } from '@/lib/openapi/portal-operations';
import { answerChecker } from '../support/openapi-check';

/**
 * The portal API's OpenAPI document: every route under app/api (but API v1 and next-auth's) is in it with the
 * method and the capability its handler asks withRole for — read from the route files themselves, so a new route or
 * a changed role the document does not say fails here; Redocly's recommended rules find no error; refusals are the
 * one error body, and a 400 names its fields.
 */

const run = promisify(execFile);

async function routes(dir = 'app/api'): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !(dir === 'app/api' && ['v1', 'auth', 'mcp'].includes(entry.name))) out.push(...(await routes(full)));
    else if (entry.name === 'route.ts') out.push(full);
  }
  return out;
}

/** What each route file says: `METHOD /api/path capability` (or `-` without a session). */
async function declared(): Promise<string[]> {
  const out: string[] = [];
  for (const file of await routes()) {
    const text = await readFile(file, 'utf8');
    const apiPath = `/${path
      .dirname(file)
      .replace(/^app\//, '')
      .replace(/\[([^\]]+)\]/g, '{$1}')}`;
    const handler = /const handler = withRole(?:<[^>]*>)?\(\s*'([a-z]+)'/.exec(text)?.[1];
    for (const m of text.matchAll(/export const (GET|POST|PUT|PATCH|DELETE) = (withRole(?:<[^>]*>)?\(\s*'([a-z]+)'|handler|\(\))/g))
      out.push(`${m[1]} ${apiPath} ${m[3] ?? (m[2] === 'handler' ? handler : '-')}`);
  }
  return out.sort();
}

describe('the portal API’s OpenAPI document', () => {
  it('names every route, method and capability the route files declare, and nothing else', async () => {
    const documented = PORTAL_OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path} ${o.capability ?? '-'}`).sort();
    expect(documented).toEqual(await declared());
    const doc = portalDocument() as unknown as { paths: Record<string, Record<string, { 'x-roles': string[] }>> };
    expect(doc.paths['/api/deliveries']!.post!['x-roles']).toEqual(['editor', 'admin']);
    expect(doc.paths['/api/coverage']!.get!['x-roles']).toEqual(['manager', 'admin']);
    expect(doc.paths['/api/health']!.get!['x-roles']).toEqual([]);
  });

  it(
    'passes Redocly’s recommended rules with no error (one warning: /api/alerts/{id}/resend beside /api/alerts/webhooks/{id})',
    { timeout: 60_000 },
    async () => {
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'openapi-')), 'portal.json');
      await writeFile(file, JSON.stringify(portalDocument()));
      const { stdout } = await run('npx', ['redocly', 'lint', file, '--format', 'json'], { maxBuffer: 10_000_000 }).catch(
        (error: { stdout: string }) => error,
      );
      const report = JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string }[] };
      expect(report.totals.errors).toBe(0);
      expect(report.problems.map((p) => `${p.severity} ${p.ruleId}`)).toEqual(['warn no-ambiguous-paths']);
    },
  );

  it('describes a refusal naming each wrong field, and only the body it has', () => {
    const check = answerChecker(portalDocument());
    const refused = {
      error: {
        status: 400,
        code: 'INVALID_DELIVERY',
        message: 'Invalid delivery: name is required; schedule must be …',
        requestId: null,
        retryAfterSeconds: null,
        details: { name: 'is required', schedule: 'must be a cron schedule' },
      },
    };
    expect(check('POST', '/api/deliveries', 400, refused)).toBeNull();
    expect(check('POST', '/api/deliveries', 400, { error: { ...refused.error, stack: 'at …' } })).toMatch(/additional properties/);
    expect(check('DELETE', '/api/deliveries/dlv_1', 204, undefined)).toBeNull();
    // A delivery's runs are built as their schema's type: a field it does not name fails.
    const run = {
      id: 'run_1',
      deliveryId: 'dlv_1',
      dueMs: null,
      trigger: 'manual',
      attempt: 1,
      instance: 'a',
      startedAt: '2026-11-28T10:00:00.000Z',
      finishedAt: null,
      outcome: 'running',
      records: null,
      bytes: null,
      sha256: null,
      file: null,
      error: null,
      durationMs: null,
      outsideLicence: null,
      table: null,
      empty: false,
    };
    expect(check('GET', '/api/deliveries/dlv_1/runs', 200, { data: [run] })).toBeNull();
    expect(check('GET', '/api/deliveries/dlv_1/runs', 200, { data: [{ ...run, secret: 'x' }] })).toMatch(/additional properties/);
    expect(check('POST', '/api/deliveries/dlv_1/run', 200, {})).toBe('POST /api/deliveries/{id}/run does not list the status 200');
  });

  it('lists the media type of every file it answers, as the portal sends it', () => {
    const check = answerChecker(portalDocument());
    for (const type of ['text/csv; charset=utf-8', 'application/jsonl; charset=utf-8', 'application/vnd.apache.parquet'])
      expect(check('GET', '/api/export/picks?format=x', 200, undefined, type), type).toBeNull();
    expect(check('GET', '/api/export/picks', 200, undefined, 'application/x-ndjson')).toBe(
      'GET /api/export/picks 200 answers application/x-ndjson; the document lists text/csv, application/json, application/jsonl, application/vnd.apache.parquet',
    );
    expect(check('GET', '/api/audit/checkpoints', 200, undefined, 'application/x-ndjson')).toBeNull();
    expect(check('GET', '/api/audit/checkpoints', 200, undefined, 'application/json')).toMatch(/answers application\/json/);
    expect(check('GET', '/api/proof/keys', 200, undefined, 'application/jwk-set+json')).toBeNull();
    expect(check('GET', '/api/coverage', 200, undefined, 'text/csv; charset=utf-8')).toBeNull();
  });
});
