import 'server-only';
import { AppError } from './errors';
import { processState } from './process-state';
import { closeStore } from './store';
import { lineLog, type LineLog } from './log';
import { saveKeptAuditEntries } from './audit/outbox';

/**
 * A clean stop on SIGTERM (scripts/portal-server.mjs calls it through globalThis): the instance says it is
 * draining at once (health and readiness answer 503, so a load balancer takes it out; new walks are refused
 * so another instance takes them), stops its loops — the poller aborts its walk and releases the lease, so
 * another instance polls at its next check rather than after the lease runs out; no new delivery run or
 * alert dispatch starts — lets exports, coverage reports and delivery runs already running finish within
 * the grace period, then closes the store. What is still running when the grace ends is cut: an export is
 * stopped and recorded cancelled before the store closes; a delivery run is left to be taken
 * for crashed and retried once by another instance (lib/deliveries/scheduler.ts), or found placed by its manifest.
 */

export const isDraining = () => processState.draining === true;

/** Refuses new whole-set work while the instance drains: a 503 another instance will not give. */
export function refuseWhileDraining(): void {
  if (isDraining())
    throw new AppError({ code: 'UPSTREAM_UNAVAILABLE', message: 'This portal instance is stopping. Try again: another one will take it.' });
}

/** Counts a walk running in this process until `release` (lib/walk-slots.ts); `cut` stops it when a stop's grace runs out. */
export function trackWalk(cut?: () => void): () => void {
  processState.runningWalks = (processState.runningWalks ?? 0) + 1;
  const cuts = (processState.walkCuts ??= new Set());
  if (cut) cuts.add(cut);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (cut) cuts.delete(cut);
    processState.runningWalks = (processState.runningWalks ?? 1) - 1;
  };
}

/** At the end of the grace: what can be cut is, and given a moment to record itself (cancelled) before the store closes. */
async function cutWalks(): Promise<number> {
  const cuts = [...(processState.walkCuts ?? [])];
  for (const cut of cuts) cut();
  const until = Date.now() + 3_000;
  while ((processState.walkCuts?.size ?? 0) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return cuts.length;
}

export async function shutdownPortal(graceMs: number, dataDir: string, log: LineLog = lineLog('portal')): Promise<void> {
  if (processState.draining) return;
  processState.draining = true;
  const started = Date.now();
  log(`[portal] stopping: draining (up to ${Math.round(graceMs / 1000)} s for running exports and delivery runs)`);
  processState.deliveries?.stop();
  await Promise.all([processState.alerts?.stop().catch(() => undefined), processState.changeFeed?.stop().catch(() => undefined)]);
  processState.changeFeed = undefined;
  while ((processState.runningWalks ?? 0) > 0 && Date.now() - started < graceMs) await new Promise((r) => setTimeout(r, 200));
  // Page requests already being answered finish too (scripts/portal-server.mjs counts them), within the same grace.
  const inFlight = (globalThis as { __portalInFlight?: () => number }).__portalInFlight;
  while ((inFlight?.() ?? 0) > 0 && Date.now() - started < graceMs) await new Promise((r) => setTimeout(r, 50));
  const left = processState.runningWalks ?? 0;
  if (left > 0) {
    processState.graceEnded = true;
    const cut = await cutWalks();
    if (cut > 0) log(`[portal] the grace ran out: ${cut} export${cut === 1 ? '' : 's'} cut, recorded cancelled`);
  }
  log(
    left > 0
      ? `[portal] stopped after ${Math.round(graceMs / 1000)} s with ${left} export${left === 1 ? '' : 's'} or run${left === 1 ? '' : 's'} still running: cut`
      : `[portal] stopped cleanly in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  // Audit entries the store did not take (it was away) are written now, or saved for the next start.
  const store = await processState.store?.catch(() => null);
  await saveKeptAuditEntries(dataDir, store?.instance ?? String(process.pid)).catch((error: unknown) =>
    log(`[audit] kept audit entries could not be saved: ${(error as Error).message}`),
  );
  // What this instance added to the audit trail is sealed before it goes (lib/audit/sealing.ts).
  processState.sealing?.stop();
  await processState.sealing?.flush();
  await closeStore().catch(() => undefined);
}
