/**
 * Re-runs a page's load in the background (a status refresh) unless a navigation is under
 * way. SvelteKit's invalidate() takes over from a navigation that is still loading and
 * aborts it: the operator's click on "open full view" was lost whenever the view loaded
 * slower than the dashboard's next refresh (a busy machine). The page navigated to loads
 * fresh data anyway, so the skipped refresh loses nothing.
 */
import { invalidate } from '$app/navigation';
import { navigating } from '$app/state';

export function refreshInBackground(dependency: string): void {
  if (navigating.to !== null) return;
  void invalidate(dependency);
}
