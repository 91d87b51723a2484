/** Everything the notifier (services/notifier) may ask the broker, one row per procedure:
 * the notice outbox and nothing else. It reads no session, pane, note, grant or
 * configuration and changes nothing but the delivery rows it claimed; the channels' URLs
 * and the redacted bodies arrive inside the deliveries it claims. roles.test.ts pins it. */
import { notifier } from '../procedures/notifier.js';
import { router } from '../trpc.js';

export const notifierRouter = router({
  notifier: {
    started: notifier.started, // mutation: claimed-but-unreported deliveries become UNKNOWN
    claim: notifier.claim, // mutation: marks deliveries claimed
    report: notifier.report, // mutation: records SENT or FAILED for a claimed delivery
  },
  // Not served: sessions.*, input.*, source.*, notes.*, grants.*, auth.*, health.*, and the rest.
});
export type NotifierRouter = typeof notifierRouter;
