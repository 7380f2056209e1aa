/**
 * An AbortController of our own that also aborts when `parent` does (with the parent's reason), so work
 * can be stopped from either side; `unlink` removes the listener once the work is over.
 */
export function linkedController(parent?: AbortSignal): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => parent?.removeEventListener('abort', follow) };
}
