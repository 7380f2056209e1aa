import type http from 'node:http';
import { ApiError, sendJson } from './respond';

/**
 * Test-only controls of the sandbox (never of the portal): its clock, records retracted from delivery,
 * and content edits. Reachable over HTTP under /__sandbox/ only when the sandbox was started with test
 * hooks (SANDBOX_TEST_HOOKS=1), so end-to-end tests can move the upstream's world while a portal watches.
 */

export interface Edit {
  fields: Record<string, unknown>;
  /** When the edit was made: the record's publishedAt moves to it. */
  atMs: number;
}

export function createControls(initial: () => number) {
  let clock = initial;
  return {
    now: () => clock(),
    /** Freezes the clock at `ms`. */
    setNow(ms: number) {
      clock = () => ms;
    },
    retracted: new Set<string>(),
    edits: new Map<string, Edit>(),
  };
}

export type Controls = ReturnType<typeof createControls>;

const readBody = (req: http.IncomingMessage) =>
  new Promise<unknown>((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk).length > 1_000_000 && req.destroy());
    req.on('end', () => {
      try {
        resolve(JSON.parse(text || '{}'));
      } catch {
        reject(new ApiError(400, 'BAD_HOOK', 'The body is not JSON.'));
      }
    });
    req.on('error', reject);
  });

const ids = (body: Record<string, unknown>): string[] => {
  if (!Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string'))
    throw new ApiError(400, 'BAD_HOOK', 'ids: a list of pick ids.');
  return body.ids as string[];
};

/** POST /__sandbox/clock {now|advanceMs}, /retract {ids}, /restore {ids}, /edit {id, fields}. */
export async function handleHook(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
  controls: Controls,
  known: (id: string) => boolean,
  requestId: string,
): Promise<void> {
  if (req.method !== 'POST') throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Hooks take POST.', { Allow: 'POST' });
  const body = (await readBody(req)) as Record<string, unknown>;
  switch (pathname) {
    case '/__sandbox/clock': {
      const target = typeof body.now === 'string' ? Date.parse(body.now) : controls.now() + Number(body.advanceMs);
      if (!Number.isFinite(target)) throw new ApiError(400, 'BAD_HOOK', 'now: an ISO timestamp, or advanceMs: milliseconds.');
      controls.setNow(target);
      return sendJson(res, 200, { now: new Date(target).toISOString() }, requestId);
    }
    case '/__sandbox/retract':
    case '/__sandbox/restore': {
      const list = ids(body);
      const unknown = list.filter((id) => !known(id));
      if (unknown.length > 0) throw new ApiError(404, 'PICK_NOT_FOUND', `Unknown ids: ${unknown.join(', ')}`);
      for (const id of list) {
        if (pathname.endsWith('retract')) controls.retracted.add(id);
        else controls.retracted.delete(id);
      }
      return sendJson(res, 200, { retracted: [...controls.retracted] }, requestId);
    }
    case '/__sandbox/edit': {
      const id = String(body.id);
      if (!known(id)) throw new ApiError(404, 'PICK_NOT_FOUND', 'No pick has that id.');
      if (body.fields === null || typeof body.fields !== 'object') throw new ApiError(400, 'BAD_HOOK', 'fields: an object.');
      const previous = controls.edits.get(id)?.fields ?? {};
      controls.edits.set(id, { fields: { ...previous, ...(body.fields as Record<string, unknown>) }, atMs: controls.now() });
      return sendJson(res, 200, { id }, requestId);
    }
    default:
      throw new ApiError(404, 'NOT_FOUND', 'No such hook.');
  }
}
