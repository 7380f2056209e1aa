import 'server-only';
import { endGrace, runningWalks, startDraining } from '../draining';
import { stopJobs } from '../jobs/registry';
import { server } from '../process-state';
import { closeStore, openedStore } from '../store';
import { lineLog, type LineLog } from '../log';
import { saveKeptAuditEntries } from '../audit/outbox';

/**
 * A clean stop on SIGTERM (scripts/portal-server.mjs calls it through the process holder, lib/process-state.ts): the instance says it is
 * draining at once (health and readiness answer 503, so a load balancer takes it out; new walks are refused
 * so another instance takes them), stops its loops — the poller aborts its walk and releases the lease, so
 * another instance polls at its next check rather than after the lease runs out; no new delivery run or
 * alert dispatch starts — lets exports, coverage reports and delivery runs already running finish within
 * the grace period, then closes the store. What is still running when the grace ends is cut: an export is
 * stopped and recorded cancelled before the store closes; a delivery run is left to be taken
 * for crashed and retried once by another instance (lib/deliveries/scheduler.ts), or found placed by its manifest.
 */

export async function shutdownPortal(graceMs: number, dataDir: string, log: LineLog = lineLog('portal')): Promise<void> {
  if (!startDraining()) return;
  const started = Date.now();
  log(`[portal] stopping: draining (up to ${Math.round(graceMs / 1000)} s for running exports and delivery runs)`);
  // The loops stop first (the feed releases its lease); what must outlast running work stops after it.
  await stopJobs('drain', graceMs);
  while (runningWalks() > 0 && Date.now() - started < graceMs) await new Promise((r) => setTimeout(r, 200));
  // Page requests already being answered finish too (scripts/portal-server.mjs counts them), within the same grace.
  while ((server.inFlight?.() ?? 0) > 0 && Date.now() - started < graceMs) await new Promise((r) => setTimeout(r, 50));
  const left = runningWalks();
  if (left > 0) {
    const cut = await endGrace();
    if (cut > 0) log(`[portal] the grace ran out: ${cut} export${cut === 1 ? '' : 's'} cut, recorded cancelled`);
  }
  log(
    left > 0
      ? `[portal] stopped after ${Math.round(graceMs / 1000)} s with ${left} export${left === 1 ? '' : 's'} or run${left === 1 ? '' : 's'} still running: cut`
      : `[portal] stopped cleanly in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  // Audit entries the store did not take (it was away) are written now, or saved for the next start.
  const store = await openedStore()?.catch(() => null);
  await saveKeptAuditEntries(dataDir, store?.instance ?? String(process.pid)).catch((error: unknown) =>
    log(`[audit] kept audit entries could not be saved: ${(error as Error).message}`),
  );
  // What this instance added to the audit trail is sealed before it goes (lib/audit/sealing.ts), leases renewed until then.
  await stopJobs('close', Math.max(1_000, graceMs - (Date.now() - started)));
  await closeStore().catch(() => undefined);
}
