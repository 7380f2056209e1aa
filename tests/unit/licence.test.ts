import { describe, expect, it } from 'vitest';
import { parseMeFields, type LicenceSummary } from '@/lib/vocabulary/licence';
import { summariseLicence } from '@/lib/picks-api/licence';

/** Differently shaped /me bodies (spec §4: "Body shape: not shown"), each read to the same kind of summary. */

const FULL: LicenceSummary = {
  partner: 'Northwind',
  licenceId: 'LIC-7',
  status: 'active',
  sports: ['Football', 'Tennis'],
  leagues: ['Premier League', 'ATP'],
  from: '2026-01-01',
  to: '2026-12-31',
  contentMode: 'full',
  channels: ['web', 'app'],
  expiresAt: '2026-12-31T23:59:59Z',
};

describe('licence read from any /me', () => {
  it('1. a licence object at the top with the usual names', () => {
    const summary = summariseLicence({
      partner: { id: 'p1', name: 'Northwind' },
      licence: {
        id: 'LIC-7',
        status: 'active',
        sports: ['Football', 'Tennis'],
        leagues: [{ name: 'Premier League' }, 'ATP'],
        dateWindow: { from: '2026-01-01', to: '2026-12-31' },
        contentMode: 'full',
        channels: 'web, app',
        expiresAt: '2026-12-31T23:59:59Z',
      },
    });
    expect(summary).toEqual(FULL);
  });

  it('2. a list of licences where only the second is active: the active one is read, the other ignored', () => {
    const summary = summariseLicence({
      partner: 'Northwind',
      licences: [
        {
          reference: 'LIC-OLD',
          active: false,
          scope: { sports: ['Cricket'], leagues: ['IPL'] },
          window: { start: '2024-01-01', end: '2024-12-31' },
        },
        {
          reference: 'LIC-7',
          active: true,
          status: 'active',
          scope: { sports: ['Football', 'Tennis'], leagues: ['Premier League', 'ATP'] },
          window: { start: '2026-01-01', end: '2026-12-31' },
          terms: { contentMode: 'full', channels: ['web', 'app'], expiresAt: '2026-12-31T23:59:59Z' },
        },
      ],
    });
    expect(summary).toEqual(FULL);
  });

  it('2b. the partner inside an account object ({ account: { partner: { name } } })', () => {
    const summary = summariseLicence({
      account: { region: 'eu-west-1', partner: { id: 'ptn_1', name: 'Northwind "Nordvind", S.à r.l.' } },
      licences: [{ id: 'LIC-7', status: 'active', sports: ['Football'] }],
    });
    expect(summary.partner).toBe('Northwind "Nordvind", S.à r.l.');
    expect(summary.licenceId).toBe('LIC-7');
  });

  it('3. an envelope ({ data }) with `terms` holding everything and `reference` for the id', () => {
    const summary = summariseLicence({
      data: {
        organisation: { name: 'Northwind' },
        license: {
          reference: 'LIC-7',
          state: 'active',
          terms: {
            allowedSports: [{ sport: 'Football' }, { sport: 'Tennis' }],
            allowedLeagues: [{ league: 'Premier League' }, { league: 'ATP' }],
            validity: { validFrom: '2026-01-01', validTo: '2026-12-31' },
            content_mode: 'full',
            distribution_channels: ['web', 'app'],
            expiry: '2026-12-31T23:59:59Z',
          },
        },
      },
    });
    expect(summary).toEqual(FULL);
  });

  it('4. a flat document: everything at the top, snake_case names', () => {
    const summary = summariseLicence({
      partner_name: 'Northwind',
      licence_id: 'LIC-7',
      status: 'active',
      licensed_sports: 'Football,Tennis',
      licensed_leagues: 'Premier League, ATP',
      date_from: '2026-01-01',
      date_to: '2026-12-31',
      mode: 'full',
      channels: ['web', 'app'],
      expires_at: '2026-12-31T23:59:59Z',
    });
    expect(summary).toEqual(FULL);
  });

  it('5. sports as objects that hold their leagues: leagues gathered from every sport', () => {
    const summary = summariseLicence({
      customer: 'Northwind',
      subscription: {
        id: 'LIC-7',
        status: 'active',
        scope: {
          sports: [
            { name: 'Football', leagues: ['Premier League'] },
            { name: 'Tennis', leagues: [{ name: 'ATP' }] },
          ],
        },
        period: { startDate: '2026-01-01', endDate: '2026-12-31' },
        tier: 'full',
        channels: [{ name: 'web' }, { name: 'app' }],
        expiresOn: '2026-12-31T23:59:59Z',
      },
    });
    expect(summary).toEqual(FULL);
  });

  it('6. entitlements with a status word instead of an active flag, the inactive ones first', () => {
    const summary = summariseLicence({
      account: { name: 'Northwind' },
      entitlements: [
        { code: 'LIC-1', status: 'expired', sports: ['Golf'] },
        { code: 'LIC-2', status: 'suspended', sports: ['Darts'] },
        { code: 'LIC-7', status: 'active', sports: ['Football', 'Tennis'], competitions: ['Premier League', 'ATP'] },
      ],
    });
    expect(summary).toMatchObject({
      partner: 'Northwind',
      licenceId: 'LIC-7',
      status: 'active',
      sports: ['Football', 'Tennis'],
      leagues: ['Premier League', 'ATP'],
    });
  });

  it('7. a deep shape no search finds the licence of, pointed at by PICKS_ME_FIELDS', () => {
    const me = {
      meta: { tenant: 'Northwind' },
      grants: [
        { g: 'LIC-OLD', what: { s: ['Cricket'], l: ['IPL'] } },
        { g: 'LIC-7', what: { s: ['Football', 'Tennis'], l: ['Premier League', 'ATP'] }, until: '2026-12-31T23:59:59Z' },
      ],
    };
    expect(summariseLicence(me).leagues).toBeNull();
    const fields = parseMeFields(
      'partner:meta.tenant,licenceId:grants.1.g,sports:grants.1.what.s,leagues:grants.1.what.l,expiresAt:grants.1.until',
    );
    expect(summariseLicence(me, fields)).toMatchObject({
      partner: 'Northwind',
      licenceId: 'LIC-7',
      sports: ['Football', 'Tennis'],
      leagues: ['Premier League', 'ATP'],
      expiresAt: '2026-12-31T23:59:59Z',
    });
  });

  it('8. PICKS_ME_FIELDS can point at the licence object, and the search then reads inside it', () => {
    const me = {
      items: [
        { kind: 'licence', sports: ['Cricket'] },
        { kind: 'licence', id: 'LIC-7', sports: ['Football'] },
      ],
    };
    expect(summariseLicence(me, parseMeFields('licence:items.1'))).toMatchObject({ licenceId: 'LIC-7', sports: ['Football'] });
  });

  it('9. a list of licences with no flag at all: the first, and nothing from the others', () => {
    const summary = summariseLicence({
      licenses: [
        { id: 'A', sports: ['Football'] },
        { id: 'B', sports: ['Tennis'], leagues: ['ATP'] },
      ],
    });
    expect(summary).toMatchObject({ licenceId: 'A', sports: ['Football'], leagues: null });
  });

  it('says nothing (null) for what it cannot find, and never crashes on odd values or cycles of depth', () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 50; i += 1) node = (node.next = {}) as Record<string, unknown>;
    node.sports = ['Too deep'];
    const summary = summariseLicence({ weird: [1, { deep: null }], partner: 42, deep });
    expect(summary).toMatchObject({ partner: '42', sports: null, leagues: null, contentMode: null, expiresAt: null });
  });
});

describe('PICKS_ME_FIELDS', () => {
  it('reads keys and indices', () => {
    expect(parseMeFields(' leagues:licences.0.scope.leagues , licence:data.licences.1 ')).toEqual({
      leagues: ['licences', 0, 'scope', 'leagues'],
      licence: ['data', 'licences', 1],
    });
    expect(parseMeFields('')).toEqual({});
  });

  it.each([
    ['leagues', /not field:path/],
    ['league:a.b', /unknown field "league"/],
    ['leagues:a..b', /not keys and indices/],
    ['leagues:a b', /not keys and indices/],
    ['leagues:a,leagues:b', /twice/],
    ['leagues:a:b', /not field:path/],
  ])('refuses %j', (value, message) => {
    expect(() => parseMeFields(value)).toThrow(message);
  });
});
