import { describe, expect, it } from 'vitest';
import { summariseLicence } from '@/lib/licence';

describe('licence summary of an undocumented /me', () => {
  it('reads the nested shape', () => {
    const summary = summariseLicence({
      partner: { id: 'p1', name: 'Northwind' },
      licence: {
        id: 'lic',
        status: 'active',
        sports: ['Football'],
        leagues: [{ name: 'Premier League' }, 'La Liga'],
        dateWindow: { from: '2026-01-01', to: '2027-01-01' },
        contentMode: 'full',
        channels: 'web, app',
        expiresAt: '2027-01-01T00:00:00Z',
      },
    });
    expect(summary).toEqual({
      partner: 'Northwind',
      licenceId: 'lic',
      status: 'active',
      sports: ['Football'],
      leagues: ['Premier League', 'La Liga'],
      from: '2026-01-01',
      to: '2027-01-01',
      contentMode: 'full',
      channels: ['web', 'app'],
      expiresAt: '2027-01-01T00:00:00Z',
    });
  });

  it('reads a flat shape with other names', () => {
    const summary = summariseLicence({
      partnerName: 'Acme',
      license: { allowedSports: ['NBA'], validFrom: 'a', validUntil: 'b', mode: 'reduced' },
    });
    expect(summary).toMatchObject({ partner: 'Acme', sports: ['NBA'], from: 'a', to: 'b', contentMode: 'reduced', expiresAt: 'b' });
  });

  it('says nothing (null) for what it cannot find, and never crashes', () => {
    const summary = summariseLicence({ weird: [1, { deep: null }], partner: 42 });
    expect(summary).toMatchObject({ partner: '42', sports: null, leagues: null, contentMode: null, expiresAt: null });
  });
});
