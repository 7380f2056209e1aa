import { probeIndexes } from '@/lib/picks-api/settle';
import { describe, expect, it } from 'vitest';
import { parseCoverageQuery, runCoverage } from '@/lib/coverage/run';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { sandboxOverHttp } from '../support/sandbox';

/** Coverage against the sandbox over real HTTP: the matrix equals counts taken from a direct walk of the API. */

const NOW = Date.parse('2026-11-20T12:00:00Z');
const upstream = sandboxOverHttp({ now: () => NOW });
const client = (key: string) => createPicksClient({ baseUrl: upstream.baseUrl, apiKey: key });

async function walk(key: string, filters: Record<string, string>): Promise<Pick[]> {
  const out: Pick[] = [];
  for await (const pick of client(key).walkPicks(filters)) out.push(pick);
  return out;
}

describe('coverage matrix', () => {
  it('equals the counts of a direct walk, per league and status, for the default range', async () => {
    const query = parseCoverageQuery(new URLSearchParams(), NOW);
    expect([query.fromDay, query.toDay]).toEqual(['2026-10-21', '2026-12-04']);
    const { report, requests } = await runCoverage(query, { client: client('sandbox-full-key') });
    const direct = await walk('sandbox-full-key', { from: query.from, to: query.to });
    expect(report.records).toBe(direct.length);
    const pages = Math.ceil(direct.length / 200);
    expect(requests).toBe(1 + pages + probeIndexes(pages).length); // /me, one request a page, and the walk's checks at its end
    for (const row of report.rows) {
      const mine = direct.filter((p) => p.league === row.league);
      expect(row.total).toBe(mine.length);
      for (const status of ['upcoming', 'live', 'settled', 'void'] as const)
        expect(row.byStatus[status]).toBe(mine.filter((p) => p.status === status).length);
      expect(row.playerPicks).toBe(mine.filter((p) => p.isPlayerPick).length);
      expect(row.lastPublishedAt).toBe(
        mine
          .map((p) => p.publishedAt!)
          .sort()
          .at(-1),
      );
      expect(row.results.win).toBe(mine.filter((p) => p.status === 'settled' && p.result === 'win').length);
      expect(row.licensed).toBe(true);
    }
    expect(new Set(report.rows.map((r) => r.league))).toEqual(new Set(direct.map((p) => p.league)));
    expect(report.timeline.reduce((sum, d) => sum + d.total, 0)).toBe(direct.length);
  });

  it('a restricted licence: its leagues are licensed, the others it names are gaps', async () => {
    const query = parseCoverageQuery(new URLSearchParams('from=2026-11-01&to=2026-11-10'), NOW);
    const { report } = await runCoverage(query, { client: client('sandbox-football-key') });
    expect(report.rows.map((r) => r.league).sort()).toEqual(['Premier League', 'Trinidad & Tobago Premier League']);
    expect(report.rows.every((r) => r.licensed === true)).toBe(true);
    expect(report.gaps.deliveredNotLicensed).toEqual([]);
  });

  it('a reduced content mode shows its missing fields in field coverage', async () => {
    const query = parseCoverageQuery(new URLSearchParams('from=2026-11-01&to=2026-11-10&sport=Tennis'), NOW);
    const { report } = await runCoverage(query, { client: client('sandbox-reduced-key') });
    const share = (field: string) => report.fieldCoverage.find((f) => f.field === field)!.share;
    expect(report.records).toBeGreaterThan(0);
    expect([share('reasoning'), share('confidenceTier'), share('probability')]).toEqual([0, 0, 0]);
    expect(share('attribution')).toBe(1);
    expect(report.calibration.scale).toBe('none');
  });

  it('refuses a range longer than the bound, before any request', () => {
    expect(() => parseCoverageQuery(new URLSearchParams('from=2026-01-01&to=2026-12-31'), NOW)).toThrow('at most 120 days');
    expect(() => parseCoverageQuery(new URLSearchParams('from=nope'), NOW)).toThrow('from must be a date');
  });

  it('fails as a whole when the walk fails: no partial figures', async () => {
    const query = parseCoverageQuery(new URLSearchParams(), NOW);
    await expect(runCoverage(query, { client: client('sandbox-suspended-key') })).rejects.toMatchObject({ code: 'LICENCE_UNAVAILABLE' });
  });
});
