/**
 * Work asked for by several callers at once is done once: the first caller starts it, the others get the
 * same promise. Two lifetimes:
 * - `sharedWhileRunning`: forgotten once settled, so the next caller asks again (an image removed
 *   meanwhile is built again);
 * - `sharedUntilFailure`: a result is kept for the process's life, a failure forgotten, so the next
 *   caller tries again instead of meeting an old error.
 * A promise is forgotten only while it is still the one kept under its key.
 */
export function sharedWhileRunning<K, V>(kept: Map<K, Promise<V>>, key: K, start: () => Promise<V>): Promise<V> {
  return share(kept, key, start, true);
}

export function sharedUntilFailure<K, V>(kept: Map<K, Promise<V>>, key: K, start: () => Promise<V>): Promise<V> {
  return share(kept, key, start, false);
}

function share<K, V>(kept: Map<K, Promise<V>>, key: K, start: () => Promise<V>, forgetOnSuccess: boolean): Promise<V> {
  const known = kept.get(key);
  if (known) return known;
  const started = start();
  kept.set(key, started);
  const forget = () => {
    if (kept.get(key) === started) kept.delete(key);
  };
  started.then(forgetOnSuccess ? forget : undefined, forget);
  return started;
}
