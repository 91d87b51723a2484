export { startNotifier, SEND_SETTLE_MS, type RunningNotifier } from './notifier.js';
export { sendDelivery } from './send-delivery.js';
export { createTargetQueues, type TargetQueues } from './target-queues.js';
