import 'server-only';
import { resettled } from '../changes/signals';
import { runEnded } from '../deliveries/signals';
import { healthChanged, licenceChanged } from '../feed-health/signals';
import { processSlot } from '../process-state';
import { queueDeliveryAlert, queueHealthAlerts, queueLicenceChange, queueResettlements } from '.';

const listening = processSlot<true>('alertsListening');

/**
 * Alerts hear what the features below them publish (lib/jobs/signals.ts) and queue an alert in the store,
 * in the publisher's transaction where it passes one. Once a process, before anything that publishes starts
 * (lib/start/portal.ts); a test that needs alerts queued calls it too.
 */
export function listenForAlerts(): void {
  listening.once(() => {
    healthChanged.listen(({ db, changed, previous, holdMs }) => queueHealthAlerts(db, changed, previous, holdMs));
    licenceChanged.listen(({ db, change }) => queueLicenceChange(db, change));
    runEnded.listen(({ db, run }) => queueDeliveryAlert(db, run));
    resettled.listen(({ db, found, at }) => queueResettlements(db, found, at));
    return true;
  });
}
