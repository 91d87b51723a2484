/** Host work the broker runs on request and allows only so much of at once: source
 * searches (git grep, MAX_CONCURRENT_SEARCHES at a time) and deploy previews (one per
 * project). Built once per broker by the composition root (`deps.running`), never kept
 * at module level: two brokers in one process (tests) do not share their counts. */
import { AppError } from '@terminal-mcp/contract';
import type { SearchSlots } from '../sources/search.js';

export interface RunningWork extends SearchSlots {
  /** Marks the project's deploy preview running or throws LEASE_BUSY; call the returned release when done. */
  takeDeployPreview(project: string): () => void;
}

export function createRunningWork(): RunningWork {
  let searches = 0;
  const previews = new Set<string>();
  return {
    takeSearchSlot(max) {
      if (searches >= max) throw new AppError('RATE_LIMITED', 'other searches are running: retry in a few seconds');
      searches += 1;
      let released = false;
      return () => {
        if (!released) searches -= 1;
        released = true;
      };
    },
    takeDeployPreview(project) {
      if (previews.has(project)) throw new AppError('LEASE_BUSY', 'a deploy preview of this project is already running', 'Wait for it to finish, then retry.');
      previews.add(project);
      return () => void previews.delete(project);
    },
  };
}
