/** What `beforeDeadline` answers when the promise did not settle in time. */
export const LATE = Symbol('late');

/**
 * The promise's value if it settles within `ms`, else LATE (its rejection, if it comes
 * first, is thrown). The timer is cleared either way, so an answered call keeps nothing
 * alive. A promise that answers late is left to settle on its own: the race subscribed
 * to it, so a late rejection is not reported as unhandled.
 */
export async function beforeDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
