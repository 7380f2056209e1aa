import { CHANNELS, LEAGUES } from './catalogue';

/**
 * Demo keys and their licences. Each restricted key narrows exactly one of the five licence dimensions
 * of spec §5 (sport/league, date, content mode, channel), plus one suspended key for 403.
 */

export type ContentMode = 'full' | 'reduced';

export interface Licence {
  key: string;
  label: string;
  partner: { id: string; name: string };
  licenceId: string;
  active: boolean;
  sports: string[];
  leagues: string[];
  /** Days relative to the data's anchor day; null = unbounded. */
  windowDays: { from: number; to: number } | null;
  contentMode: ContentMode;
  channels: string[];
  /** Own throttle budget (requests per window); null uses the sandbox's default. */
  rateLimit?: { limit: number; windowMs: number };
}

const ALL_SPORTS = [...new Set(LEAGUES.map((l) => l.sport))];
const ALL_LEAGUES = LEAGUES.map((l) => l.league);
const ALL_CHANNELS = [...CHANNELS];

const partner = { id: 'ptn_0042', name: 'Northwind Media Group' };

export const DEFAULT_FULL_KEY = 'sandbox-full-key';

export function demoLicences(fullKey = DEFAULT_FULL_KEY): Licence[] {
  const full: Omit<Licence, 'key' | 'label' | 'licenceId'> = {
    partner,
    active: true,
    sports: ALL_SPORTS,
    leagues: ALL_LEAGUES,
    windowDays: null,
    contentMode: 'full',
    channels: ALL_CHANNELS,
  };
  return [
    { ...full, key: fullKey, label: 'Full licence: every sport, league, date, field and channel', licenceId: 'lic_full' },
    {
      ...full,
      key: 'sandbox-football-key',
      label: 'Football only, two leagues (sport and league restriction)',
      licenceId: 'lic_football',
      sports: ['Football'],
      leagues: ['Premier League', 'Trinidad & Tobago Premier League'],
    },
    {
      ...full,
      key: 'sandbox-window-key',
      label: 'Date window: events from 7 days ago to 7 days ahead',
      licenceId: 'lic_window',
      windowDays: { from: -7, to: 7 },
    },
    {
      ...full,
      key: 'sandbox-reduced-key',
      label: 'Reduced content mode: no reasoning, probability or confidence tier',
      licenceId: 'lic_reduced',
      contentMode: 'reduced',
    },
    { ...full, key: 'sandbox-channel-key', label: 'Single channel: web', licenceId: 'lic_web', channels: ['web'] },
    {
      ...full,
      key: 'sandbox-suspended-key',
      label: 'Suspended licence: every data request answers 403',
      licenceId: 'lic_suspended',
      active: false,
    },
    {
      ...full,
      key: 'sandbox-throttled-key',
      label: 'Full licence with a tiny budget: 3 requests per 60 s, then 429',
      licenceId: 'lic_throttled',
      rateLimit: { limit: 3, windowMs: 60_000 },
    },
  ];
}

/** Fields a reduced content mode withholds: some removed outright, some sent as null (both happen, §1). */
export const REDUCED_REMOVED = ['reasoning', 'confidenceTier'] as const;
export const REDUCED_NULLED = ['probability'] as const;
