/**
 * Slots per key, counted in this process's memory: at most `max` held per key at once, each given back once. What
 * holds them (a running call, a run that outlived its call) and whose key it is are the caller's business
 * (lib/limits/concurrency.ts, lib/tasks/on-behalf.ts).
 */

export interface Slots {
  readonly max: number;
  /** A slot of `key`: the function that gives it back (once, however often it is called), or undefined when `key` holds `max`. */
  take(key: string): (() => void) | undefined;
}

export function createSlots(max: number): Slots {
  // Only keys holding slots have an entry, so the map holds at most as many keys as slots are held.
  const held = new Map<string, number>();
  return {
    max,
    take(key) {
      const now = held.get(key) ?? 0;
      if (now >= max) return undefined;
      held.set(key, now + 1);
      let holding = true;
      return () => {
        if (!holding) return;
        holding = false;
        const left = held.get(key)! - 1;
        if (left === 0) held.delete(key);
        else held.set(key, left);
      };
    },
  };
}
