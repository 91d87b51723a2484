/** Deliveries to one target (a channel, or the supervisor webhook) go one at a time, in
 * the order the broker queued them (a supervisor event's successor never overtakes it);
 * different targets go side by side, so a channel that hangs until its timeout delays
 * only its own notices. */
import type { PendingDelivery } from '@terminal-mcp/contract';

export interface TargetQueues {
  push(delivery: PendingDelivery): void;
  /** Deliveries taken and not yet finished. */
  inFlight(): number;
  /** Resolves when every queue is empty and nothing is being sent. */
  idle(): Promise<void>;
}

export function createTargetQueues(send: (delivery: PendingDelivery) => Promise<void>): TargetQueues {
  const queues = new Map<string, PendingDelivery[]>();
  let busy = 0;
  let idleWaiters: (() => void)[] = [];
  const settleIdle = () => {
    if (busy > 0) return;
    for (const w of idleWaiters) w();
    idleWaiters = [];
  };

  async function drain(target: string, queue: PendingDelivery[]): Promise<void> {
    try {
      for (let next = queue[0]; next !== undefined; next = queue[0]) {
        await send(next).catch(() => undefined);
        queue.shift();
        busy--;
      }
    } finally {
      queues.delete(target);
      settleIdle();
    }
  }

  return {
    push(delivery) {
      busy++;
      const queue = queues.get(delivery.target);
      if (queue !== undefined) {
        queue.push(delivery);
        return;
      }
      const fresh = [delivery];
      queues.set(delivery.target, fresh);
      void drain(delivery.target, fresh);
    },
    inFlight: () => busy,
    idle: () => (busy === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
  };
}
