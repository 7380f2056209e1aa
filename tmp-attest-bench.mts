import { generatePicks } from '/work/main/sandbox/data.ts';
import { newAttestor } from '/work/main/lib/proof/attest.ts';
const seeds = generatePicks({ count: 40000, seed: 7, anchorMs: Date.parse('2026-11-20T12:00:00Z') });
const records = seeds.map((s) => ({ ...s.body, status: 'settled' }));
const sports = [...new Set(records.map((r: any) => r.sport))];
const leagues = [...new Set(records.map((r: any) => r.league))];
const licence = { summary: { licenceId: 'x', sports, leagues, from: '2026-01-01', to: '2027-12-31', contentMode: 'full', channels: [] } as any, document: {}, readAt: '' };
for (let round = 0; round < 7; round++) {
  const t0 = performance.now();
  const a = newAttestor(licence);
  for (let i = 0; i < records.length; i += 200) a.see(records.slice(i, i + 200), 'utf8');
  const t1 = performance.now();
  a.recordIds(); a.attestation();
  const t2 = performance.now();
  console.log(`see ${(t1 - t0).toFixed(1)} ms, finish ${(t2 - t1).toFixed(1)} ms`);
}
