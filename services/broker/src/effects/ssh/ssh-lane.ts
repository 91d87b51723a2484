/**
 * How many nodes may be opening their ssh master connection, or asking it to exit, at
 * once (issue 48 item 6). Each is a process spawned from the broker, and a spawn runs on
 * the event loop (fork and exec of a process of a few hundred MB take 10-50 ms on a
 * loaded 2-core machine); each connection is also a key exchange on both ends. 100 nodes
 * started together held the broker's start for 63 s at load 20 (the sockets answered, the
 * build behind them did not), and 100 `ssh -O exit` at the stop kept the event loop from
 * turning until the stop watchdog killed the broker. With a lane, the spawns come a few at
 * a time, each in its own turn of the loop.
 */
export interface SshLane {
  /** Waits for a slot; the returned function gives it back (idempotent). */
  acquire(): Promise<() => void>;
  /** A lane made `held` grants no slot until this is called (the broker's start: nodes
   * connect once it is built and serving, not while its build runs). */
  open(): void;
}

export const SSH_LANE_WIDTH = 8;

export function createSshLane(width = SSH_LANE_WIDTH, options: { held?: boolean } = {}): SshLane {
  let busy = options.held === true ? width : 0;
  let held = options.held === true;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return {
    open() {
      if (!held) return;
      held = false;
      // The slots the hold kept busy, given to the waiters (or freed).
      for (let i = 0; i < width; i++) release();
    },
    async acquire() {
      if (busy < width) busy++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      let mine = true;
      return () => {
        if (!mine) return;
        mine = false;
        release();
      };
    },
  };
}
