import { createHmac } from 'node:crypto';
import { lifecycleAt, type SeedRecord } from './data';
import { afterListPage, type Controls } from './hooks';
import type { Licence } from './licences';
import { FILTER_PARAMS, parseQuery, type Filters } from './query';
import { invalidFilters } from './respond';
import { lowerBound } from './scope';

/**
 * List pages of /picks and /results, and their cursors. By default a cursor is a place in the sandbox's
 * fixed order (sealed with a MAC over the key and filters); in offset mode (./hooks.ts) it counts the
 * records served before it, as some real upstreams' do.
 */

export interface ListerDeps {
  controls: Controls;
  /** Each licence's records, in upstream order. */
  licensed: Map<string, SeedRecord[]>;
  defaultPageSize: number;
  cursorSecret: Buffer;
  present: (record: SeedRecord, licence: Licence, origin: string, life: ReturnType<typeof lifecycleAt>) => Record<string, unknown>;
}

export function createLister({ controls, licensed, defaultPageSize, cursorSecret, present }: ListerDeps) {
  const now = controls.now;
  function listPage(licence: Licence, params: URLSearchParams, kind: 'picks' | 'results', origin: string) {
    const page = controls.cursors === 'offset' ? offsetPage(licence, params, kind, origin) : positionPage(licence, params, kind, origin);
    afterListPage(controls);
    return page;
  }

  /** The default: a cursor is a place in the fixed order, unmoved by what is published or withdrawn. */
  function positionPage(licence: Licence, params: URLSearchParams, kind: 'picks' | 'results', origin: string) {
    const { filters, limit, cursor } = parseQuery(params, kind, defaultPageSize);
    if (kind === 'results') filters.status = 'settled';
    const list = licensed.get(licence.key) ?? [];
    const canonical = JSON.stringify([kind, licence.key, ...FILTER_PARAMS.map((p) => filters[p]?.toLowerCase() ?? null)]);
    const fromMs = filters.from ? Date.parse(filters.from) : -Infinity;
    const toMs = filters.to ? Date.parse(filters.to) : Infinity;
    let position = cursor === undefined ? lowerBound(list, fromMs) : Math.max(openCursor(cursor, canonical) + 1, lowerBound(list, fromMs));
    const at = now();
    const data: Record<string, unknown>[] = [];
    let last = -1;
    let hasMore = false;
    for (; position < list.length; position += 1) {
      const record = list[position] as SeedRecord;
      if (record.eventMs >= toMs) break;
      const life = lifecycleAt(record, at);
      if (!life.published || controls.retracted.has(record.id) || !matches(record, life, filters)) continue;
      if (data.length === limit) {
        hasMore = true;
        break;
      }
      data.push(present(record, licence, origin, life));
      last = position;
    }
    return { data, page: { nextCursor: hasMore ? sealCursor(last, canonical) : null, hasMore } };
  }

  /** Test mode: a cursor counts the records served before it (what moves under a walk shifts the rest). */
  function offsetPage(licence: Licence, params: URLSearchParams, kind: 'picks' | 'results', origin: string) {
    const { filters, limit, cursor } = parseQuery(params, kind, defaultPageSize);
    if (kind === 'results') filters.status = 'settled';
    const list = licensed.get(licence.key) ?? [];
    const canonical = JSON.stringify(['offset', kind, licence.key, ...FILTER_PARAMS.map((p) => filters[p]?.toLowerCase() ?? null)]);
    const fromMs = filters.from ? Date.parse(filters.from) : -Infinity;
    const toMs = filters.to ? Date.parse(filters.to) : Infinity;
    const skip = cursor === undefined ? 0 : openCursor(cursor, canonical) + 1;
    const at = now();
    const data: Record<string, unknown>[] = [];
    let matched = 0;
    let hasMore = false;
    for (let position = lowerBound(list, fromMs); position < list.length; position += 1) {
      const record = list[position] as SeedRecord;
      if (record.eventMs >= toMs) break;
      const life = lifecycleAt(record, at);
      if (!life.published || controls.retracted.has(record.id) || !matches(record, life, filters)) continue;
      matched += 1;
      if (matched <= skip) continue;
      if (data.length === limit) {
        hasMore = true;
        break;
      }
      data.push(present(record, licence, origin, life));
    }
    return { data, page: { nextCursor: hasMore ? sealCursor(skip + data.length - 1, canonical) : null, hasMore } };
  }

  // Cursor: 4 bytes of position + 7 bytes of a MAC over the position, key, endpoint and filters, in
  // standard base64 (so '+', '/' and '=' occur, as they do in real cursors). Other filters: 400.
  function sealCursor(position: number, canonical: string): string {
    const pos = Buffer.alloc(4);
    pos.writeUInt32BE(position);
    return Buffer.concat([pos, mac(pos, canonical)]).toString('base64');
  }

  function openCursor(cursor: string, canonical: string): number {
    const raw = /^[A-Za-z0-9+/]{14}[A-Za-z0-9+/=]{2}$/.test(cursor) ? Buffer.from(cursor, 'base64') : Buffer.alloc(0);
    if (raw.length !== 11 || !mac(raw.subarray(0, 4), canonical).equals(raw.subarray(4))) throw invalidFilters(new Set(['cursor']));
    return raw.readUInt32BE(0);
  }

  const mac = (pos: Buffer, canonical: string) => createHmac('sha256', cursorSecret).update(pos).update(canonical).digest().subarray(0, 7);

  function matches(record: SeedRecord, life: ReturnType<typeof lifecycleAt>, filters: Filters): boolean {
    if (filters.sport && record.league.sport.toLowerCase() !== filters.sport.toLowerCase()) return false;
    if (filters.league && record.league.league.toLowerCase() !== filters.league.toLowerCase()) return false;
    if (filters.status && life.status !== filters.status) return false;
    if (filters.result && life.result !== filters.result) return false;
    return true;
  }

  return listPage;
}
