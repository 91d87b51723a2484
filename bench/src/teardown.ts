/**
 * What a bench run started, to be stopped however the run ends: a section that throws, a
 * Ctrl-C or a SIGTERM must not leave a broker, an HTTP gateway (holding its port) or a
 * tmux server with its sessions behind. Each part is registered right after it starts and
 * stopped in reverse order; a part that fails to stop is reported and the rest still stop.
 */
export interface Teardown {
  /** Registers `stop` for something just started; returns a function that stops it now
   * (and forgets it), for a section that ends its own parts before the next begins. */
  add(label: string, stop: () => Promise<unknown> | unknown): () => Promise<void>;
  /** Stops everything still registered, newest first. Safe to call more than once. */
  run(): Promise<void>;
}

export function createTeardown(report: (line: string) => void = (line) => console.error(line)): Teardown {
  const parts: { label: string; stop: () => Promise<unknown> | unknown }[] = [];
  const stopPart = async (part: (typeof parts)[number]) => {
    try {
      await part.stop();
    } catch (err) {
      report(`bench teardown: stopping ${part.label} failed: ${(err as Error).message}`);
    }
  };
  return {
    add(label, stop) {
      const part = { label, stop };
      parts.push(part);
      return async () => {
        const i = parts.indexOf(part);
        if (i < 0) return;
        parts.splice(i, 1);
        await stopPart(part);
      };
    },
    async run() {
      while (parts.length > 0) await stopPart(parts.pop()!);
    },
  };
}
