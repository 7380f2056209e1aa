import { processSlot } from '../process-state';

/**
 * Facts a feature publishes for the features above it (a delivery run ended, a sport's health changed, the
 * licence changed, a delivered result was settled again). The publisher names no listener: alerts, above
 * deliveries and feed health, listen (lib/alerts/listen.ts), so no import points up.
 *
 * `publish` awaits every listener, in the order they listened: what a listener keeps (an alert queued in the
 * store, in the publisher's own transaction when the fact carries it) is kept before the publisher goes on,
 * exactly as a direct call would, so it survives a restart. A listener that throws does not stop the others;
 * the publish then fails with the first error, as the direct call failed. Listeners live once a process
 * (lib/process-state.ts), however many times Next bundled this module.
 */

export type Listener<T> = (fact: T) => Promise<void> | void;

export interface Signal<T> {
  readonly name: string;
  publish(fact: T): Promise<void>;
  /** Adds a listener; the returned function removes it. */
  listen(listener: Listener<T>): () => void;
}

const registry = processSlot<Map<string, Set<Listener<never>>>>('signals');
const listenersOf = <T>(name: string) => {
  const all = registry.once(() => new Map());
  let set = all.get(name);
  if (!set) all.set(name, (set = new Set()));
  return set as unknown as Set<Listener<T>>;
};

export function signal<T>(name: string): Signal<T> {
  return {
    name,
    async publish(fact) {
      let failure: unknown = null;
      for (const listener of [...listenersOf<T>(name)]) {
        try {
          await listener(fact);
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure !== null) throw failure;
    },
    listen(listener) {
      const set = listenersOf<T>(name);
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
}
